//! A counterexample as text and as a DOT graph.

use mowgli_core::{ExecGraph, StampTable};

use super::judge::{impl_sub, setup_method_name, sub_name};
use crate::analyses::refine::Setup;
use crate::engines::explicit::Visited;

/// The abstract execution, the implementation execution grouped by abstract call,
/// and g, as text.
pub(super) fn render(setup: &Setup, v: &Visited, abs_g: &ExecGraph, gmap: Option<&[usize]>, to: &StampTable) -> String {
    use std::fmt::Write;
    let g = v.g;
    let abs_lib = &setup.low.libs[setup.lidx];
    let w = &setup.ctx.world;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "abstract execution (L = {}), each call with its implementation f⁻¹ (subevent numbers):",
        abs_lib.name()
    );
    for (ai, e) in abs_g.events.iter().enumerate() {
        let stamps: Vec<String> = abs_g.subs_of[ai].iter().map(|&s| to.stamp_name(abs_g.subs[s].stamp)).collect();
        let _ = writeln!(
            out,
            "  T{}#{} {}({}) = {}   [{}]",
            e.thread + 1,
            e.index,
            setup_method_name(abs_lib.as_ref(), e),
            e.args.iter().map(|a| w.show(a)).collect::<Vec<_>>().join(", "),
            w.show(&e.ret),
            stamps.join(", ")
        );
        for (ei, ce) in g.events.iter().enumerate() {
            if ce.thread != e.thread || ce.origin != Some(e.index) {
                continue;
            }
            let lib = setup.owned[ce.lib].as_ref();
            let ret = &v.runs[ce.thread].calls[ce.index].ret;
            let subs: Vec<String> = g.subs_of[ei].iter().map(|&s| impl_sub(g, to, s)).collect();
            let _ = writeln!(
                out,
                "      {}.{}({}) = {}   [{}]",
                lib.name(),
                setup_method_name(lib, ce),
                ce.args.iter().map(|a| w.show(a)).collect::<Vec<_>>().join(", "),
                w.show(ret),
                subs.join(", ")
            );
        }
    }
    if let Some(gm) = gmap {
        let _ = writeln!(out, "g:");
        for (s, &t) in gm.iter().enumerate() {
            if t != usize::MAX {
                let _ = writeln!(out, "  {} ↦ {}", sub_name(abs_g, to, s), impl_sub(g, to, t));
            }
        }
    }
    for (name, r) in &v.relations {
        if r.is_empty() {
            continue;
        }
        let pairs: Vec<String> =
            r.pairs().map(|(a, b)| format!("{} → {}", impl_sub(g, to, a), impl_sub(g, to, b))).collect();
        let _ = writeln!(out, "{name}: {}", pairs.join(", "));
    }
    out
}

/// The same as a DOT graph: abstract subevents on the left, implementation
/// subevents clustered by abstract call on the right, g as dashed edges, hb
/// (ppo ∪ so) inside the implementation.
pub(super) fn dot(setup: &Setup, v: &Visited, abs_g: &ExecGraph, gmap: Option<&[usize]>, to: &StampTable) -> String {
    use std::fmt::Write;
    let g = v.g;
    let abs_lib = &setup.low.libs[setup.lidx];
    let mut out = String::from("digraph obligations {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n");
    let _ = writeln!(out, "  subgraph cluster_abstract {{ label=\"abstract ({})\";", abs_lib.name());
    for s in 0..abs_g.len() {
        let _ = writeln!(out, "    a{s} [label=\"{}\"];", sub_name(abs_g, to, s));
    }
    out.push_str("  }\n");
    for (ai, e) in abs_g.events.iter().enumerate() {
        let _ = writeln!(
            out,
            "  subgraph cluster_call{ai} {{ label=\"f⁻¹(T{}#{} {})\"; style=dashed;",
            e.thread + 1,
            e.index,
            setup_method_name(abs_lib.as_ref(), e)
        );
        for s in 0..g.len() {
            let ce = g.event_of(s);
            if ce.thread == e.thread && ce.origin == Some(e.index) {
                let _ = writeln!(out, "    c{s} [label=\"{}\"];", impl_sub(g, to, s));
            }
        }
        out.push_str("  }\n");
    }
    for (a, b) in v.so.pairs() {
        let _ = writeln!(out, "  c{a} -> c{b} [label=\"so\", color=blue];");
    }
    for (a, b) in g.ppo.pairs() {
        let _ = writeln!(out, "  c{a} -> c{b} [label=\"ppo\", color=gray];");
    }
    if let Some(gm) = gmap {
        for (s, &t) in gm.iter().enumerate() {
            if t != usize::MAX {
                let _ = writeln!(out, "  a{s} -> c{t} [style=dashed, color=darkgreen, label=\"g\"];");
            }
        }
    }
    out.push_str("}\n");
    out
}
