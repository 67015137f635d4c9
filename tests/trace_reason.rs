//! The declarative reason an outcome is forbidden (issue 14, `mowgli trace` on an
//! unreachable outcome): the candidate executions with the outcome, each with
//! the axiom of RDMA Def. 4.4 it breaks and a cycle
//! (`mowgli_check::analyses::reason`, `WitnessSearch::explain` of `rdmatso`).
//!
//! Checked three ways: the candidates the library calls consistent have exactly
//! the explicit engine's outcomes (a naive enumeration against the engine's
//! pruned search) on the RDMA paper's tests; the cycles for App. A.3's MP4 with a
//! poll and for Fig. 3e (as the prose describes it) are the ones worked out by
//! hand from the paper's relations below; and through the CLI.

use mowgli_libs::catalogue::Catalogue;
use std::collections::BTreeSet;
use std::path::PathBuf;

use mowgli_check::analyses::litmus;
use mowgli_check::analyses::reason::{self, Reasons};
use mowgli_check::engines::explicit::{self, Outcome};
use mowgli_check::lang::{lower, syntax};
use mowgli_libs::orders::default_order;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The reasons for the test's first expectation's condition (`libraries` line
/// replaced by `lib` when given), and the engine's outcomes.
fn reasons_of(file: &str, lib: Option<&str>, budget: u64) -> (Reasons, BTreeSet<Outcome>) {
    let mut text = std::fs::read_to_string(root().join(file)).expect("readable");
    if let Some(lib) = lib {
        text = text
            .lines()
            .map(|l| if l.starts_with("libraries") { format!("libraries {lib}") } else { l.to_string() })
            .collect::<Vec<_>>()
            .join("\n");
    }
    let order = default_order();
    let to = order.table("to").expect("to");
    let ast = syntax::parse(&text).expect("parses");
    let low = lower::lower(&ast, &order, &Catalogue::builtins()).expect("lowers");
    let prob = lower::problem(&low, to);
    let decl: BTreeSet<Outcome> = explicit::run(&prob, false).expect("runs").outcomes.into_keys().collect();
    let cond = &low.expects[0].cond;
    let r = reason::reasons(&prob, &|o| cond.holds(o), budget, 3).expect("runs").expect("one library");
    (r, decl)
}

fn cycle_rels(r: &Reasons) -> Vec<String> {
    r.examples[0].violation.cycle.iter().map(|e| e.rel.clone()).collect()
}

/// Each file's consistent candidates under each of `variants` (a naive witness
/// space within `budget`) against the engine's outcome set; returns (compared,
/// over the budget).
fn compare_variants(files: &[PathBuf], variants: &[&str], budget: u64) -> (usize, usize) {
    let (mut compared, mut skipped) = (0, 0);
    for f in files {
        let rel = f.strip_prefix(root()).unwrap_or(f).display().to_string();
        for variant in variants {
            let (r, decl) = reasons_of(&rel, Some(variant), budget);
            if r.truncated {
                skipped += 1;
                continue;
            }
            assert_eq!(r.consistent_outcomes, decl, "{rel} as {variant}");
            compared += 1;
        }
    }
    eprintln!("{compared} test variants compared, {skipped} over the budget");
    (compared, skipped)
}

/// On every RDMA^TSO test of the RDMA paper (`specs/litmus/rdma`), both PCIe
/// variants, whose naive witness space fits the budget: the consistent candidates
/// give the engine's outcome set.
#[test]
fn consistent_candidates_have_the_engines_outcomes() {
    let files: Vec<PathBuf> = litmus::collect(&[root().join("specs/litmus/rdma")])
        .expect("the paper's tests")
        .into_iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).expect("readable");
            text.lines().find(|l| l.starts_with("libraries")).is_some_and(|l| {
                let lib = l[9..].trim();
                lib == "rdmatso" || lib == "rdmatso_nopcie"
            })
        })
        .collect();
    let (compared, _) = compare_variants(&files, &["rdmatso", "rdmatso_nopcie"], 20_000);
    assert!(compared >= 60, "{compared} compared");
}

/// The same on the remote-atomics tests (`specs/litmus/rdmatso-rmw`) under the
/// three RDMA^TSO_RMW libraries: the explanation's parts of ib include an RMW's
/// write issued with its read (without that part, a candidate the engine rejects
/// would be explained as consistent).
#[test]
fn consistent_candidates_have_the_engines_outcomes_with_rmws() {
    let files = litmus::collect(&[root().join("specs/litmus/rdmatso-rmw")]).expect("the RMW tests");
    let (compared, _) = compare_variants(&files, &["rdmatso_rmw", "rdmatso_rmw_nopcie", "rdmatso_rmw_glob"], 200_000);
    assert!(compared >= 12, "{compared} compared");
}

/// App. A.3: "This behaviour can be prevented with an rfence or a poll instruction
/// between the two remote operations". The one candidate with a = 1 ∧ b = 0 (the
/// first get reads y = 1 from T1's write, the second reads x's initial 0) breaks
/// Def. 4.4 (2), by the cycle: W(x,1) →oppo W(y,1) (TSO keeps CPU writes in
/// order) →rf_b̄ the first get's nrR (an external read: not through a buffer)
/// →oppo its nlW (the get's read before its write) →[nlW];pf the poll →oppo the
/// second get's nrR (a poll orders what follows) →rb W(x,1) (it reads x's initial
/// value, older than W(x,1)).
#[test]
fn mp4_with_a_poll_breaks_ob() {
    let (r, decl) = reasons_of("specs/litmus/rdma/RDMA-AppA3-MP4-poll.litmus", None, 1 << 20);
    assert!(!decl.is_empty() && r.consistent == 0 && !r.truncated);
    assert_eq!((r.candidates, r.groups), (1, 1));
    assert_eq!(r.by_axiom.keys().collect::<Vec<_>>(), vec!["Def. 4.4 (2): ob is irreflexive"]);
    assert_eq!(cycle_rels(&r), vec!["oppo", "rf_b̄", "oppo", "[nlW];pf", "oppo", "rb"]);
}

/// RDMA Fig. 3e as the prose describes it (each thread polls its put, then a get
/// it polls too, then reads): a = b = 0 is forbidden with PCIe. With nfo (the
/// NIC flush order, 4 pairs: 16 choices) set aside one candidate remains, and its
/// best nfo choice breaks Def. 4.4 (2) by the symmetric cycle: each put's nrW
/// →oppo the later get's nlW of the same queue pair (the PCIe flush: Fig. 9's
/// oppo orders a put's remote write before a later get's completion) →[nlW];pf
/// the second poll →oppo the CPU read →rb the other thread's put (it reads the
/// initial value). Without PCIe that oppo edge is gone and the outcome is allowed.
#[test]
fn fig3e_prose_breaks_ob_with_pcie_only() {
    let file = "specs/litmus/rdma/RDMA-Fig3e-SB-poll-get-prose.litmus";
    let (r, _) = reasons_of(file, None, 1 << 20);
    assert_eq!((r.consistent, r.groups, r.candidates), (0, 1, 16));
    assert_eq!(r.by_axiom.keys().collect::<Vec<_>>(), vec!["Def. 4.4 (2): ob is irreflexive"]);
    let half = ["oppo", "[nlW];pf", "oppo", "rb"];
    assert_eq!(cycle_rels(&r), [half, half].concat());
    let (r, decl) = reasons_of(file, Some("rdmatso_nopcie"), 1 << 20);
    assert!(r.consistent > 0, "allowed without PCIe");
    assert!(decl
        .iter()
        .any(|o| o.regs[0][0] == Some(mowgli_core::Value::Int(0)) && o.regs[1][0] == Some(mowgli_core::Value::Int(0))));
}

/// `mowgli trace` shows the reason when no run reaches the outcome.
#[test]
fn trace_cli_shows_the_cycle() {
    let bin = env!("CARGO_BIN_EXE_mowgli");
    let o = std::process::Command::new(bin)
        .arg("trace")
        .arg(root().join("specs/litmus/rdma/RDMA-AppA3-MP4-poll.litmus"))
        .args(["--outcome", "a = 1 /\\ b = 0"])
        .output()
        .expect("runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("no run of the machine reaches this outcome"), "{out}");
    assert!(out.contains("1 break Def. 4.4 (2): ob is irreflexive"), "{out}");
    assert!(
        out.contains(
            "e0.aCW --oppo--> e1.aCW --rf_b̄--> e2.aNRR_1 --oppo--> e2.aNLW_1 --[nlW];pf--> e3.aWT --oppo--> e4.aNRR_1 --rb--> e0.aCW"
        ),
        "{out}"
    );
    assert!(out.contains("e2: Get(a, y)"), "{out}");
}
