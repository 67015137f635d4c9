//! The equivalence theorems of "Semantics of RDMA" (OOPSLA 2024) as tests (issue 14):
//!
//! * Thm. 3.1: the concrete machine (six buffers per queue pair, §3.2) and the
//!   simplified one (three buffers, §3.3 / App. B) have the same outcomes;
//! * Thm. 4.5: the operational machines and the declarative model (Def. 4.4, the
//!   explicit engine of `mowgli-check`) have the same outcomes;
//!
//! each with the PCIe guarantee and without it, on every RDMA^TSO test of
//! `specs/litmus` (the herd x86 tests too: they run as RDMA^TSO on one node) and on
//! every program `mowgli generate --libs rdmatso` writes up to a bound. The two
//! sides are independent computations: the machine never looks at ippo/oppo, rf/mo
//! witnesses or consistency, the declarative engine never at buffers.
//!
//! Also: the partial-order reduction changes no outcome set and never explores more
//! states; the operational engine alone reproduces every paper expectation.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mowgli_check::analyses::generate::{self, SuiteBounds, SuiteOptions};
use mowgli_check::analyses::litmus;
use mowgli_check::analyses::litmus::operational::{self, LitmusEngine};
use mowgli_check::engines::explicit::Outcome;
use mowgli_libs::orders::default_order;
use mowgli_machine::Machine;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The library of a test (`None`: not an RDMA^TSO test); herd x86 tests are rdmatso.
fn library(text: &str) -> Option<String> {
    if mowgli_check::lang::herd::is_herd(text) {
        return Some("rdmatso".into());
    }
    let line = text.lines().find(|l| l.trim_start().starts_with("libraries"))?;
    let lib = line.trim_start().trim_start_matches("libraries").trim();
    ["rdmatso", "rdmatso_nopcie", "rdmatso_f1"].contains(&lib).then(|| lib.to_string())
}

/// The same test over the other PCIe variant (`libraries` line swapped).
fn other_variant(text: &str, lib: &str) -> Option<String> {
    let to = match lib {
        "rdmatso" => "rdmatso_nopcie",
        "rdmatso_nopcie" => "rdmatso",
        _ => return None,
    };
    let mut done = false;
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            if !done && l.trim_start().starts_with("libraries") {
                done = true;
                format!("libraries {to}")
            } else {
                l.to_string()
            }
        })
        .collect();
    done.then(|| out.join("\n") + "\n")
}

#[derive(Default, Debug)]
struct Tally {
    programs: usize,
    outcomes: usize,
    states_reduced: usize,
    states_full: usize,
}

fn show(o: &Outcome) -> String {
    format!("{:?} {:?}", o.regs, o.finals)
}

fn diff(a: &BTreeSet<Outcome>, b: &BTreeSet<Outcome>, an: &str, bn: &str) -> String {
    let mut s = String::new();
    for o in a.difference(b) {
        s += &format!("\n    only {an}: {}", show(o));
    }
    for o in b.difference(a) {
        s += &format!("\n    only {bn}: {}", show(o));
    }
    s
}

/// Thm. 3.1 and 4.5 on one program (its declared PCIe variant), and the reduction
/// against the full state space; `pcie` overrides the machines' PCIe flag (herd
/// tests, which have no NIC operations, for the no-PCIe machines).
fn check(name: &str, text: &str, pcie: Option<bool>, full: bool, t: &mut Tally) -> Result<(), String> {
    let order = default_order();
    let (decl, conc, ex) =
        operational::compare_text(text, &order, Machine::Concrete, pcie, true).map_err(|e| format!("{name}: {e}"))?;
    let (simp, _) = operational::machine_outcomes_text(text, &order, Machine::Simplified, pcie, true)
        .map_err(|e| format!("{name}: {e}"))?;
    if decl != conc {
        return Err(format!(
            "{name} (pcie {pcie:?}): Thm. 4.5 fails:{}",
            diff(&decl, &conc, "declarative", "concrete")
        ));
    }
    if conc != simp {
        return Err(format!("{name} (pcie {pcie:?}): Thm. 3.1 fails:{}", diff(&conc, &simp, "concrete", "simplified")));
    }
    t.programs += 1;
    t.outcomes += decl.len();
    t.states_reduced += ex.states;
    if full {
        let (conc_full, ex_full) = operational::machine_outcomes_text(text, &order, Machine::Concrete, pcie, false)
            .map_err(|e| format!("{name}: {e}"))?;
        if conc_full != conc {
            return Err(format!(
                "{name}: the reduction changes outcomes:{}",
                diff(&conc_full, &conc, "full", "reduced")
            ));
        }
        if ex_full.states < ex.states {
            return Err(format!("{name}: the reduction explores more states ({} > {})", ex.states, ex_full.states));
        }
        t.states_full += ex_full.states;
    }
    Ok(())
}

fn paper_tests() -> Vec<(PathBuf, String, String)> {
    let files = litmus::collect(&[root().join("specs/litmus")]).expect("specs/litmus");
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable");
        if let Some(lib) = library(&text) {
            out.push((f, text, lib));
        }
    }
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

/// Thm. 3.1 and 4.5, both PCIe variants, on every RDMA^TSO paper test.
#[test]
fn paper_suite_engines_agree() {
    let mut t = Tally::default();
    let mut errs = Vec::new();
    let tests = paper_tests();
    assert!(tests.len() >= 100, "expected the paper's RDMA^TSO tests, found {}", tests.len());
    for (f, text, lib) in &tests {
        let name = rel(f);
        if let Err(e) = check(&name, text, None, true, &mut t) {
            errs.push(e);
        }
        if mowgli_check::lang::herd::is_herd(text) {
            // no NIC operation: PCIe is irrelevant; the machines without it must agree too
            if let Err(e) = check(&name, text, Some(false), false, &mut t) {
                errs.push(e);
            }
        } else if let Some(other) = other_variant(text, lib) {
            if let Err(e) =
                check(&format!("{name} as {}", library(&other).unwrap_or_default()), &other, None, true, &mut t)
            {
                errs.push(e);
            }
        }
    }
    eprintln!(
        "paper suite: {} program variants, {} outcomes compared; concrete machine states {} reduced vs {} full",
        t.programs, t.outcomes, t.states_reduced, t.states_full
    );
    assert!(errs.is_empty(), "{}", errs.join("\n"));
    assert!(t.states_reduced < t.states_full, "the reduction saves states on the paper suite");
}

/// The operational engine alone reproduces every paper expectation (the two
/// documented disagreements included: they stay `known`).
#[test]
fn operational_engine_reproduces_paper_expectations() {
    let order = default_order();
    for eng in [LitmusEngine::Operational, LitmusEngine::OperationalSimplified] {
        for (f, text, _) in paper_tests() {
            let r = litmus::check_text_engine(&rel(&f), &text, &order, eng).expect("runs");
            for e in &r.expectations {
                assert!(
                    e.passed(),
                    "{eng:?}: {} line {}: {} {} is {}",
                    r.file,
                    e.line,
                    e.kind,
                    e.condition,
                    e.status()
                );
            }
        }
    }
}

fn generated(lib: &str, b: SuiteBounds) -> Vec<generate::SuiteTest> {
    let opts = SuiteOptions {
        libs: vec![lib.to_string()],
        bounds: b,
        max_tests: None,
        jobs: 2,
        model: "the default stamp order".into(),
        partition: mowgli_check::analyses::refine::gen::Partition::ALL,
    };
    generate::generate_suite(&opts, &default_order(), &|_| {}).expect("generates").1
}

fn generated_agree(b: SuiteBounds, full: usize) -> Tally {
    let mut t = Tally::default();
    let mut errs = Vec::new();
    for lib in ["rdmatso", "rdmatso_nopcie"] {
        let tests = generated(lib, b.clone());
        assert!(!tests.is_empty());
        for (i, g) in tests.iter().enumerate() {
            // the full state space (no reduction) on every `full`-th program
            let with_full = full > 0 && i % full == 0;
            if let Err(e) = check(&g.name, &g.text, None, with_full, &mut t) {
                errs.push(format!("{e}\n{}", g.text));
            }
        }
    }
    eprintln!(
        "generated (threads {}, nodes {}, instrs {}, locs {}, values {}): {} programs, {} outcomes compared; states {} reduced vs {} full",
        b.threads, b.nodes, b.instrs, b.locs, b.values, t.programs, t.outcomes, t.states_reduced, t.states_full
    );
    assert!(errs.is_empty(), "{} differences:\n{}", errs.len(), errs.join("\n"));
    t
}

/// Thm. 3.1 and 4.5 on every generated program with 2 threads of at most 2
/// instructions, 2 nodes, 2 locations (both PCIe variants); the reduction against
/// the full state space on every 8th.
#[test]
fn generated_programs_engines_agree() {
    let b = SuiteBounds { threads: 2, nodes: 2, instrs: 2, locs: 2, values: 1, min_threads: 2 };
    let t = generated_agree(b, 8);
    assert!(t.states_reduced > 0 && t.states_full > 0);
    assert!(t.programs > 100);
}

/// The bound: 2 threads × 3 instructions, 2 nodes, 2 locations
/// (`cargo test --release --test operational -- --ignored`).
#[test]
#[ignore]
fn generated_programs_engines_agree_3_instrs() {
    let b = SuiteBounds { threads: 2, nodes: 2, instrs: 3, locs: 2, values: 1, min_threads: 2 };
    generated_agree(b, 0);
}

/// A shortest run of the machine for RDMA Fig. 3e's weak outcome without PCIe, and
/// none with PCIe (the declarative reason is shown), through the CLI.
#[test]
fn trace_cli() {
    let bin = env!("CARGO_BIN_EXE_mowgli");
    let f = root().join("specs/litmus/rdma/RDMA-Fig3e-SB-poll-get-prose.litmus");
    let run = |extra: &[&str]| {
        let o = std::process::Command::new(bin)
            .arg("trace")
            .arg(&f)
            .args(["--outcome", "T1:a = 0 /\\ T2:b = 0"])
            .args(extra)
            .output()
            .expect("runs");
        (o.status.code(), String::from_utf8_lossy(&o.stdout).to_string())
    };
    let (code, out) = run(&["--pcie", "off"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("a shortest run: 36 transitions"), "{out}");
    for rule in ["P1", "P2", "P3", "G3", "G6", "LR"] {
        assert!(out.contains(&format!(" {rule} ")), "rule {rule} missing:\n{out}");
    }
    assert!(out.contains("rf: ") && out.contains("mo: ") && out.contains("pf: "), "{out}");
    // the simplified machine's shortest run is shorter (fewer moves between buffers)
    let (code, out_s) = run(&["--pcie", "off", "--machine", "simplified"]);
    assert_eq!(code, Some(0), "{out_s}");
    assert!(out_s.contains("SG14"), "{out_s}");
    // with PCIe: unreachable, and the declarative engine agrees
    let (code, out) = run(&[]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("no run of the machine reaches this outcome"), "{out}");
    assert!(out.contains("no consistent execution"), "{out}");
    // a malformed outcome is an input error
    let o =
        std::process::Command::new(bin).arg("trace").arg(&f).args(["--outcome", "T9:a = 0"]).output().expect("runs");
    assert_eq!(o.status.code(), Some(2));
}

/// `--engine both` on the paper suite: no difference, exit 0; `operational` on a
/// test of another library is an input error.
#[test]
fn litmus_engine_both_cli() {
    let bin = env!("CARGO_BIN_EXE_mowgli");
    let o = std::process::Command::new(bin)
        .args(["litmus", "--engine", "both", "--quiet"])
        .arg(root().join("specs/litmus/rdma"))
        .arg(root().join("specs/litmus/herd-x86"))
        .output()
        .expect("runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(!out.contains("engines differ"), "{out}");
    let o = std::process::Command::new(bin)
        .args(["litmus", "--engine", "operational"])
        .arg(root().join("specs/litmus/loco/LOCO-Fig3a-put-wait.litmus"))
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2));
}
