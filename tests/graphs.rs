//! Execution graphs (issue 32 item 7): the pictures `--dot` and `--html` draw,
//! built by the commands from real runs. Threads are columns, program order goes
//! down each column and only between neighbours (no transitive po or ppo edge),
//! the refuted edge or the forbidding cycle is highlighted, allowed outcomes are
//! drawn on request, and the DOT and SVG back-ends render every node and edge.
//! (tests/html_browser.rs loads the HTML report in a headless browser.)

use std::collections::BTreeSet;
use std::path::PathBuf;

use mowgli_check::analyses::litmus::operational::LitmusEngine;
use mowgli_check::analyses::litmus::show::{check_file_drawn, Drawing, Show};
use mowgli_check::analyses::obligations::{self, Obligation, Options};
use mowgli_check::analyses::refine::gen::Bounds;
use mowgli_check::lang::implementation::Implementation;
use mowgli_draw::Graph;
use mowgli_libs::orders::default_order;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// RDMA Fig. 3a (store buffering through puts) with its ✓ turned into a
/// `forbidden`: the expectation fails, and its counterexample is drawn.
fn sb_forbidden() -> PathBuf {
    let text = std::fs::read_to_string(root().join("specs/litmus/rdma/RDMA-Fig3a-SB3bis-put-read.litmus")).unwrap();
    let dir = std::env::temp_dir().join(format!("mowgli-graphs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("SB-forbidden.litmus");
    std::fs::write(&path, text.replace("expect allowed", "expect forbidden")).unwrap();
    path
}

fn drawn(path: &std::path::Path, show: Show) -> Vec<Drawing> {
    let limits = Default::default();
    check_file_drawn(
        path,
        &default_order(),
        &mowgli_libs::catalogue::Catalogue::builtins(),
        LitmusEngine::Explicit,
        limits,
        show,
    )
    .unwrap()
    .1
}

/// The shape every picture has: nodes inside the declared columns, po only
/// between neighbours of one column and downwards, ppo and mo by their
/// transitive reduction.
fn well_drawn(g: &Graph, what: &str) {
    assert!(!g.nodes.is_empty(), "{what}: no nodes");
    for n in &g.nodes {
        assert!(n.column < g.columns.len(), "{what}: a node outside the columns");
    }
    let rows: BTreeSet<(usize, usize)> = g.nodes.iter().map(|n| (n.column, n.row)).collect();
    assert_eq!(rows.len(), g.nodes.len(), "{what}: two nodes in one place");
    for e in g.edges.iter().filter(|e| e.kind == "po" && !e.highlight) {
        let (a, b) = (&g.nodes[e.from], &g.nodes[e.to]);
        assert_eq!(a.column, b.column, "{what}: po across columns");
        let between = g.nodes.iter().any(|n| n.column == a.column && n.row > a.row && n.row < b.row);
        assert!(b.row > a.row && !between, "{what}: po edge not to the next node down");
    }
    for kind in ["ppo", "mo"] {
        let pairs: BTreeSet<(usize, usize)> =
            g.edges.iter().filter(|e| e.kind == kind && !e.highlight).map(|e| (e.from, e.to)).collect();
        for &(a, b) in &pairs {
            for &(c, d) in &pairs {
                assert!(!(a == c && pairs.contains(&(d, b)) && d != b), "{what}: transitive {kind} edge {a} -> {b}");
            }
        }
    }
    let dot = mowgli_draw::dot::dot(g, "t");
    dot_well_formed(&dot, g, what);
    let svg = mowgli_draw::svg::svg(g, "t");
    assert_eq!(svg.matches("class=\"node\"").count(), g.nodes.len(), "{what}: an SVG box per node");
    assert_eq!(svg.matches("class=\"edge\"").count(), g.edges.len(), "{what}: an SVG path per edge");
}

/// Balanced braces and quotes, a declaration per node inside a cluster per
/// column, every edge between declared nodes.
fn dot_well_formed(d: &str, g: &Graph, what: &str) {
    let (mut depth, mut in_str, mut esc) = (0i32, false, false);
    for c in d.chars() {
        match (in_str, esc, c) {
            (true, true, _) => esc = false,
            (true, false, '\\') => esc = true,
            (true, false, '"') => in_str = false,
            (false, _, '"') => in_str = true,
            (false, _, '{') => depth += 1,
            (false, _, '}') => depth -= 1,
            _ => {}
        }
        assert!(depth >= 0, "{what}: unbalanced braces\n{d}");
    }
    assert!(depth == 0 && !in_str, "{what}: unbalanced\n{d}");
    assert!(d.starts_with("digraph ") && d.trim_end().ends_with('}'));
    for c in 0..g.columns.len() {
        assert!(d.contains(&format!("subgraph cluster_c{c} {{")), "{what}: no cluster for column {c}");
    }
    for n in 0..g.nodes.len() {
        assert_eq!(
            d.matches(&format!("\n      n{n} [label=")).count() + d.matches(&format!("\n    n{n} [label=")).count(),
            1,
            "{what}: node {n} declared once"
        );
    }
    let edges = d.lines().filter(|l| l.contains(" -> ") && !l.contains("style=invis")).count();
    assert_eq!(edges, g.edges.len(), "{what}: an edge line per edge");
}

#[test]
fn a_failing_forbidden_expectation_draws_its_counterexample_in_columns() {
    let d = drawn(&sb_forbidden(), Show::Failing);
    assert_eq!(d.len(), 1, "one failing expectation, one picture");
    let g = &d[0].graph;
    well_drawn(g, "SB counterexample");
    assert_eq!(g.columns, vec!["T1 @ node 1", "T2 @ node 2"]);
    // each event's call with its arguments and value; a put's two subevents boxed
    let labels: Vec<String> = g.nodes.iter().flat_map(|n| n.lines.clone()).collect();
    assert!(labels.iter().any(|l| l == "e1: Read(y) = 0"), "{labels:?}");
    assert!(g.groups.iter().any(|gr| gr.label.starts_with("e0: Put(x, 1)") && gr.nodes.len() == 2));
    // rb across the columns, both ways
    let rb: Vec<(usize, usize)> =
        g.edges.iter().filter(|e| e.kind == "rb").map(|e| (g.nodes[e.from].column, g.nodes[e.to].column)).collect();
    assert!(rb.contains(&(0, 1)) && rb.contains(&(1, 0)), "{rb:?}");
    assert!(g.notes.iter().any(|n| n.contains("T1:a=0") && n.contains("T2:b=0")));
    assert_eq!(d[0].stem, "RDMA-Fig3a-SB3bis-put-read-l20");
}

#[test]
fn allowed_outcomes_are_drawn_on_request() {
    let path = root().join("specs/litmus/rdma/RDMA-Fig3a-SB3bis-put-read.litmus");
    assert!(drawn(&path, Show::Failing).is_empty(), "the expectation holds: nothing to draw by default");
    let allowed = drawn(&path, Show::Allowed);
    assert_eq!(allowed.len(), 1);
    assert!(allowed[0].caption.contains("expect allowed"));
    let all = drawn(&path, Show::All);
    // the expectation's execution and one per reachable outcome (4)
    assert_eq!(all.len(), 5, "{:?}", all.iter().map(|d| &d.caption).collect::<Vec<_>>());
    for d in &all {
        well_drawn(&d.graph, &d.caption);
        assert!(!d.graph.edges.iter().any(|e| e.highlight), "an allowed execution has nothing to highlight");
    }
}

#[test]
fn a_forbidden_outcome_is_drawn_with_the_cycle_that_forbids_it() {
    // MP1 (RDMA Fig. 11): two puts to the reader are seen in order; forbidden holds
    let path = root().join("specs/litmus/rdma/RDMA-Fig11-MP1-puts-to-reader.litmus");
    let d = drawn(&path, Show::All);
    let why = d.iter().find(|d| d.stem.ends_with("-l21")).expect("the forbidden expectation is drawn");
    let g = &why.graph;
    well_drawn(g, "MP1 cycle");
    let cycle: Vec<(usize, usize)> = g.edges.iter().filter(|e| e.highlight).map(|e| (e.from, e.to)).collect();
    assert!(cycle.len() >= 2, "{cycle:?}");
    // the highlighted edges close a cycle: every node on it is left and entered once
    let from: BTreeSet<usize> = cycle.iter().map(|p| p.0).collect();
    let to: BTreeSet<usize> = cycle.iter().map(|p| p.1).collect();
    assert_eq!(from, to, "{cycle:?}");
    assert!(g.highlight_meaning.as_deref().is_some_and(|m| m.contains("Def. 4.4")), "{:?}", g.highlight_meaning);
}

#[test]
fn a_refuted_obligation_highlights_the_so_edge_and_the_missing_hb_edge() {
    let order = default_order();
    let imp = Implementation::load(
        &root().join("specs/impls/irbl.impl"),
        &order,
        &mowgli_libs::catalogue::Catalogue::builtins(),
    )
    .unwrap();
    let mut b = Bounds::new("rbl", 1, 1, 2);
    b.self_ring = true;
    let clients = obligations::abstract_programs(&imp, &order, &b).unwrap();
    let opts = Options { loop_bound: 4, first_fail: true, ..Default::default() };
    let r = obligations::check_clients(&imp, &order, &clients, &imp.map, &opts).unwrap();
    let f = r.failures.first().expect("refuted");
    assert_eq!(f.obligation, Obligation::O2);
    let g = f.graph.as_ref().expect("drawn");
    well_drawn(g, "O2 refutation");
    let hi: Vec<&str> = g.edges.iter().filter(|e| e.highlight).map(|e| e.text()).collect();
    assert!(hi.contains(&"so'") && hi.contains(&"missing hb"), "{hi:?}");
    // ppo by its transitive reduction, which is short
    let ppo = g.edges.iter().filter(|e| e.kind == "ppo").count();
    assert!(ppo > 0 && ppo < 20, "{ppo} ppo edges");
    assert!(
        g.columns.iter().any(|c| c.ends_with("abstract")) && g.columns.iter().any(|c| c.ends_with("implementation"))
    );
    assert!(f.dot.contains("penwidth=2.5"), "the DOT highlights it too");
}
