//! Robustness (Ambal, Lahav, Raad, "Sufficient Conditions for Robustness of RDMA
//! Programs", `rdma-robustness.txt`): the RDMA^sc library (Def. 4) on the paper's
//! figures.

use std::path::{Path, PathBuf};

use mowgli_check::explore::rename_library;
use mowgli_check::litmus;
use mowgli_libs::orders::default_order;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn robustness_files() -> Vec<PathBuf> {
    let files = litmus::collect(&[root().join("specs/litmus/robustness")]).expect("suite directory exists");
    assert!(files.len() >= 27, "the robustness suite has 27 files");
    files
}

/// Every figure of the robustness paper keeps its stated outcomes under RDMA^sc: §2's
/// examples are stated for RDMA* (both models), §4-§5's for RDMA^sc. The one
/// TSO-only outcome (App. B.1, store buffering ✓ under RDMA^TSO) is left out, and its
/// SC line (✗ under RDMA^SC) is `ROB-AppB1-SB-SC.litmus`, over `rdmasc` already.
#[test]
fn robustness_figures_hold_under_rdmasc() {
    let order = default_order();
    let mut checked = 0;
    for f in robustness_files() {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        if name == "ROB-AppB1-SB-TSO.litmus" {
            continue;
        }
        let text = std::fs::read_to_string(&f).expect("reads");
        let sc = rename_library(&text, "rdmatso", "rdmasc");
        assert!(sc.contains("libraries rdmasc"), "{name} runs under rdmasc");
        let r = litmus::check_text(&name, &sc, &order).unwrap_or_else(|e| panic!("{e}"));
        for e in &r.expectations {
            checked += 1;
            assert!(e.ok, "{name}:{}: expect {} {} fails under rdmasc", e.line, e.kind, e.condition);
        }
    }
    assert!(checked >= 41, "{checked} expectations");
}

/// The SC store-buffering line of App. B.1 distinguishes the two models: the same
/// program allows (0, 0) under rdmatso and forbids it under rdmasc.
#[test]
fn store_buffering_separates_rdmasc_from_rdmatso() {
    let order = default_order();
    let text = std::fs::read_to_string(root().join("specs/litmus/robustness/ROB-AppB1-SB-SC.litmus")).expect("reads");
    let sc = litmus::check_text("sb-sc", &text, &order).expect("runs");
    assert!(sc.all_ok());
    assert_eq!(sc.outcomes.len(), 3);
    let tso = litmus::check_text("sb-tso", &rename_library(&text, "rdmasc", "rdmatso"), &order).expect("runs");
    assert_eq!(tso.outcomes.len(), 4, "RDMA^TSO adds (0, 0)");
}
