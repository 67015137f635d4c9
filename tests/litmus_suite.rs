//! The paper suites (`specs/litmus/**`) as the project's own tests: every
//! expectation transcribed from a paper must hold, and every full outcome set is
//! snapshot-tested (`tests/snapshots/`).
//!
//! An expectation the tool disagrees with is never edited to match: the
//! disagreement is explained in a comment starting `# DISAGREES:` in the comment
//! block right above the `expect` line, and this test then requires that it still
//! fails (so a fix shows up here and the note gets removed).

use mowgli_libs::catalogue::Catalogue;
use std::path::{Path, PathBuf};

use mowgli_check::analyses::litmus::{self, TestReport};
use mowgli_libs::orders::default_order;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run_dir(dir: &str) -> Vec<(PathBuf, TestReport)> {
    let order = default_order();
    let files = litmus::collect(&[root().join(dir)]).expect("suite directory exists");
    assert!(!files.is_empty(), "no litmus files under {dir}");
    files
        .into_iter()
        .map(|f| {
            let r = litmus::check_file(&f, &order, &Catalogue::builtins()).unwrap_or_else(|e| panic!("{e}"));
            (f, r)
        })
        .collect()
}

fn check_suite(dir: &str) {
    let mut failures = Vec::new();
    let mut count = 0;
    for (f, r) in run_dir(dir) {
        for e in &r.expectations {
            count += 1;
            let known = e.known.is_some();
            if !e.passed() {
                failures.push(format!(
                    "{}:{}: expect {} {} -> {}",
                    f.display(),
                    e.line,
                    e.kind,
                    e.condition,
                    if known { "now HOLDS although marked # DISAGREES (remove the note)" } else { "FAIL" }
                ));
            }
        }
        let rel = f.strip_prefix(root()).unwrap_or(&f).display().to_string();
        let snap_name = rel.trim_start_matches("specs/litmus/").replace(['/', '.'], "_");
        let outcomes: Vec<String> = r
            .outcomes
            .iter()
            .map(|o| o.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; "))
            .collect();
        insta::assert_snapshot!(snap_name, outcomes.join("\n"));
    }
    assert!(failures.is_empty(), "{} of {count} expectations disagree:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn rdma_paper_suite() {
    check_suite("specs/litmus/rdma");
}

#[test]
fn loco_paper_suite() {
    check_suite("specs/litmus/loco");
}

#[test]
fn robustness_paper_suite() {
    check_suite("specs/litmus/robustness");
}

#[test]
fn rdmatso_extension() {
    check_suite("specs/litmus/rdmatso-ext");
}

#[test]
fn loco_library_figures() {
    check_suite("specs/litmus/loco-libs");
}

#[test]
fn corerma_paper_suite() {
    check_suite("specs/litmus/corerma");
}
