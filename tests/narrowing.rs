//! The explicit engine narrows the witness variables' domains at the root of a
//! plain execution's search (`Problem::narrow_above`, `engines/explicit/domains.rs`).
//! Narrowing only drops values that no consistent witness assigns, so it must
//! change no outcome and lose no consistent execution. Compared here with
//! narrowing forced at every plain execution (`narrow_above = 0`) against none
//! (`narrow_above = ∞`), counting every consistent execution (`all_executions`),
//! and against the naive enumerator (no pruning at all, an independent
//! computation) where that enumerator is small enough: on every test the project
//! ships, and on the lock and atomic-variable implementations over
//! RDMA^WAIT_RMW at loop bound 2, whose searches narrowing was made for.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mowgli_check::analyses::{litmus, refine};
use mowgli_check::engines::explicit::{self, Outcome, Problem};
use mowgli_check::lang::implementation::Implementation;
use mowgli_check::lang::{lower, syntax};
use mowgli_libs::catalogue::Catalogue;
use mowgli_libs::orders::default_order;

#[path = "common/libraries.rs"]
mod libraries;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The built-ins and every library file of `specs/libs`, as `--lib` adds them.
fn catalogue() -> Catalogue {
    libraries::catalogue(&root())
}

/// A run visiting every consistent execution: its outcomes, how many consistent
/// executions, candidates checked, and the naive enumerator's candidates.
struct Run {
    outcomes: BTreeSet<Outcome>,
    consistent: u64,
    candidates: u64,
    naive: f64,
}

fn every_execution(p: &mut Problem, narrow_above: f64) -> Option<Run> {
    p.narrow_above = narrow_above;
    p.all_executions = true;
    let r = explicit::run(p, false).ok()?;
    let s = r.stats;
    Some(Run {
        outcomes: r.outcomes.into_keys().collect(),
        consistent: s.consistent,
        candidates: s.candidates,
        naive: s.naive,
    })
}

/// Naive enumerations of at most this many candidates are run.
const NAIVE_MAX: f64 = 50_000.0;

#[test]
fn narrowing_changes_no_outcome_of_a_shipped_test() {
    let order = default_order();
    let to = order.table("to").expect("to");
    let cat = catalogue();
    let dirs: Vec<PathBuf> = ["specs/litmus", "specs/clients"].iter().map(|d| root().join(d)).collect();
    let (mut compared, mut naive, mut narrowed) = (0, 0, 0);
    for f in litmus::collect(&dirs).expect("the test directories exist") {
        let text = std::fs::read_to_string(&f).expect("readable");
        let Ok(ast) = syntax::parse(&text) else { continue };
        // herd's x86 tests and tests of libraries by other names are other suites'
        let Ok(low) = lower::lower(&ast, &order, &cat) else { continue };
        let mut p = lower::problem(&low, to);
        let Some(plain) = every_execution(&mut p, f64::INFINITY) else { continue };
        let forced = every_execution(&mut p, 0.0).expect("runs as without narrowing");
        let name = f.display();
        assert_eq!(plain.outcomes, forced.outcomes, "{name}: outcomes differ with narrowing");
        assert_eq!(plain.consistent, forced.consistent, "{name}: consistent executions differ with narrowing");
        compared += 1;
        narrowed += usize::from(forced.candidates != plain.candidates);
        if plain.naive <= NAIVE_MAX {
            p.prune = false;
            let r = explicit::run(&p, false).expect("the naive enumerator runs");
            let outs: BTreeSet<Outcome> = r.outcomes.into_keys().collect();
            assert_eq!(outs, forced.outcomes, "{name}: the naive enumerator finds other outcomes");
            naive += 1;
        }
    }
    eprintln!("{compared} tests compared ({narrowed} searched differently), {naive} also against the naive enumerator");
    assert!(compared > 250 && naive > 200 && narrowed > 100, "{compared}, {naive}, {narrowed}");
}

/// The clients of `dir` under implementation `imp` at loop bound 2, refine's
/// problem (registers only): with and without narrowing.
fn implementation_agrees(imp: &str, dir: &str) -> usize {
    let order = default_order();
    let to = order.table("to").expect("to");
    let cat = catalogue();
    let imp = Implementation::load(&root().join(imp), &order, &cat).unwrap_or_else(|e| panic!("{e}"));
    let mut compared = 0;
    for f in litmus::collect(&[root().join(dir)]).expect("the clients exist") {
        let text = std::fs::read_to_string(&f).expect("readable");
        let Ok(refine::Prepared::Ready(setup)) = refine::prepare(&imp, &order, "client", &text) else {
            panic!("{}", f.display())
        };
        let mut p = setup.impl_problem(to, 2).expect("the problem settles");
        let plain = every_execution(&mut p, f64::INFINITY).expect("runs");
        let forced = every_execution(&mut p, 0.0).expect("runs");
        assert_eq!((plain.outcomes, plain.consistent), (forced.outcomes, forced.consistent), "{}", f.display());
        compared += 1;
    }
    compared
}

#[test]
fn narrowing_changes_no_outcome_of_the_rmw_implementations() {
    let n = implementation_agrees("specs/impls/irlock.impl", "specs/clients/rlock")
        + implementation_agrees("specs/impls/irticket.impl", "specs/clients/rlock")
        + implementation_agrees("specs/impls/iratomic.impl", "specs/clients/ratomic");
    assert!(n >= 10, "{n} clients");
}

/// Four acquisitions of a test-and-set lock with no release: no execution, since
/// at most one RCAS reads the lock free. Without narrowing the search tries every
/// order of the failed attempts' choices before each contradiction; with it, the
/// atomicity of the lock word empties a domain at once. The attempts are unrolled
/// (RDMA^WAIT_RMW's Wait without its `completes` claim: otherwise the failed
/// attempts are dropped before any search, `mowgli_core::program::retry`).
#[test]
fn narrowing_sees_at_once_that_four_acquisitions_cannot_all_succeed() {
    let order = default_order();
    let to = order.table("to").expect("to");
    let mut spec = mowgli_spec::parse_file(&root().join("specs/libs/rdmawait_rmw.lib")).expect("the file");
    spec.methods.iter_mut().for_each(|m| m.completes = None);
    let cat = catalogue().with_spec(&spec);
    let imp = Implementation::load(&root().join("specs/impls/irlock.impl"), &order, &cat).expect("loads");
    let text = "test four\nlibraries rlock, rdmawait_rmw\nthread T1 @ 1\nthread T2 @ 1\nloc l @ 1\n\
                T1:\n  rlock.Acquire(l)\n  rlock.Acquire(l)\nT2:\n  rlock.Acquire(l)\n  rlock.Acquire(l)\n";
    let Ok(refine::Prepared::Ready(setup)) = refine::prepare(&imp, &order, "four", text) else { panic!("prepares") };
    let mut p = setup.impl_problem(to, 2).expect("settles");
    let plain = every_execution(&mut p, f64::INFINITY).expect("runs");
    let narrowed = every_execution(&mut p, explicit::NARROW_ABOVE).expect("runs");
    assert!(plain.outcomes.is_empty() && narrowed.outcomes.is_empty());
    assert!(
        narrowed.candidates * 10 < plain.candidates,
        "candidates: {} narrowed, {} not",
        narrowed.candidates,
        plain.candidates
    );
}
