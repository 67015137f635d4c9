//! A counterexample as text and as a DOT graph.

use mowgli_core::{ExecGraph, StampTable};
use mowgli_draw::{Graph, Group};

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

/// The same as a graph: per thread a column of abstract subevents (program order
/// down) beside a column of its implementation's subevents, each abstract
/// call's implementation boxed (f⁻¹), g as dashed edges across, so and the
/// transitive reduction of ppo (hb = (ppo ∪ so)⁺) inside the implementation.
/// `refuted` is what the failure is about: for O2 the abstract so' edge (a, b),
/// highlighted with the hb edge g(a) → g(b) it lacks; for O1 the subevent whose
/// image breaks to's promises, its g edge highlighted.
pub(super) fn graph(
    setup: &Setup,
    v: &Visited,
    abs_g: &ExecGraph,
    gmap: Option<&[usize]>,
    to: &StampTable,
    refuted: Refuted,
) -> Graph {
    let g = v.g;
    let abs_lib = &setup.low.libs[setup.lidx];
    let w = &setup.ctx.world;
    let threads = w.threads.len().max(abs_g.events.iter().map(|e| e.thread + 1).max().unwrap_or(0));
    let mut out = Graph::new(format!("abstract execution (L = {}) and its implementation", abs_lib.name()));
    let mut col = Vec::new();
    for t in 0..threads {
        let name = w.threads.get(t).map(|th| th.name.clone()).unwrap_or_else(|| format!("T{}", t + 1));
        col.push((out.column(format!("{name}: abstract")), out.column(format!("{name}: implementation"))));
    }
    // implementation subevents: rows in program order per thread
    let mut impl_node = vec![usize::MAX; g.len()];
    let mut impl_row = vec![0usize; g.len()];
    for (t, &(_, ic)) in col.iter().enumerate() {
        let mut mine: Vec<usize> = (0..g.len()).filter(|&s| g.event_of(s).thread == t).collect();
        mine.sort_by_key(|&s| (g.event_of(s).index, s));
        for (r, &s) in mine.iter().enumerate() {
            let ce = g.event_of(s);
            let lib = setup.owned[ce.lib].as_ref();
            let ret = &v.runs[ce.thread].calls[ce.index].ret;
            let args: Vec<String> = ce.args.iter().map(|a| w.show(a)).collect();
            let call = format!("{}.{}({}) = {}", lib.name(), setup_method_name(lib, ce), args.join(", "), w.show(ret));
            impl_row[s] = r;
            impl_node[s] = out.node(ic, r, vec![call, impl_sub(g, to, s)]);
        }
    }
    // abstract subevents: beside their image where there is one, in program order
    let mut abs_node = vec![usize::MAX; abs_g.len()];
    for (t, &(ac, _)) in col.iter().enumerate() {
        let mut mine: Vec<usize> = (0..abs_g.len()).filter(|&s| abs_g.event_of(s).thread == t).collect();
        mine.sort_by_key(|&s| (abs_g.event_of(s).index, s));
        let mut next = 0;
        for s in mine {
            let e = abs_g.event_of(s);
            let image = gmap.and_then(|m| m.get(s)).filter(|&&i| i != usize::MAX).map(|&i| impl_row[i]);
            let r = image.unwrap_or(next).max(next);
            next = r + 1;
            let args: Vec<String> = e.args.iter().map(|a| w.show(a)).collect();
            let call = format!("{}({}) = {}", setup_method_name(abs_lib.as_ref(), e), args.join(", "), w.show(&e.ret));
            abs_node[s] = out.node(ac, r, vec![call, sub_name(abs_g, to, s)]);
        }
    }
    for (ai, e) in abs_g.events.iter().enumerate() {
        let nodes: Vec<usize> = (0..g.len())
            .filter(|&s| g.event_of(s).thread == e.thread && g.event_of(s).origin == Some(e.index))
            .map(|s| impl_node[s])
            .collect();
        if !nodes.is_empty() {
            let label = format!("f⁻¹(T{}#{} {})", e.thread + 1, e.index, setup_method_name(abs_lib.as_ref(), e));
            out.groups.push(Group { label, nodes });
        }
        let _ = ai;
    }
    let abs_ppo: Vec<(usize, usize)> = abs_g.ppo.pairs().map(|(a, b)| (abs_node[a], abs_node[b])).collect();
    out.reduced(&abs_ppo, "ppo");
    let ppo: Vec<(usize, usize)> = g.ppo.pairs().map(|(a, b)| (impl_node[a], impl_node[b])).collect();
    out.reduced(&ppo, "ppo");
    for (a, b) in v.so.pairs() {
        out.edge(impl_node[a], impl_node[b], "so");
    }
    if let Some(gm) = gmap {
        for (s, &t) in gm.iter().enumerate() {
            if t != usize::MAX {
                out.edge(abs_node[s], impl_node[t], "g");
            }
        }
    }
    match refuted {
        Refuted::So(a, b) => {
            out.highlighted(abs_node[a], abs_node[b], "so'", None);
            if let Some(gm) = gmap.filter(|m| m[a] != usize::MAX && m[b] != usize::MAX) {
                out.highlighted(impl_node[gm[a]], impl_node[gm[b]], "hb", Some("missing hb".into()));
                out.highlight(abs_node[a], impl_node[gm[a]], "g");
                out.highlight(abs_node[b], impl_node[gm[b]], "g");
            }
            out.highlight_meaning =
                Some("the refuted so' edge and the hb edge between its images that is missing".into());
        }
        Refuted::Image(s) => {
            if let Some(&t) = gmap.and_then(|m| m.get(s)).filter(|&&t| t != usize::MAX) {
                out.highlight(abs_node[s], impl_node[t], "g");
                out.highlight_meaning = Some("the image g(s) that breaks to's promises".into());
            }
        }
        Refuted::None => {}
    }
    out
}

/// What a failure is about, for the picture.
#[derive(Clone, Copy, Debug)]
pub(super) enum Refuted {
    /// O2: the abstract so' edge whose image is not in hb.
    So(usize, usize),
    /// O1: the abstract subevent whose image breaks to's promises.
    Image(usize),
    None,
}

/// The run as sections of the HTML report (`--html`): per method its cells
/// (obligation, verdict, executions checked), then per refutation its reason,
/// abstract program, executions and picture.
pub fn sections(rep: &super::Report) -> Vec<mowgli_draw::html::Section> {
    use super::Obligation;
    use mowgli_draw::html::{Section, Tone};
    let mut out = Vec::new();
    for m in &rep.methods {
        let mut text = String::new();
        let mut failed = false;
        for o in Obligation::ALL {
            let Some(c) = rep.cells.get(m).and_then(|c| c.get(&o)) else { continue };
            let s = match c.failure {
                Some(i) => {
                    failed = true;
                    format!("FAIL (#{})", i + 1)
                }
                None if c.checked == 0 => "-".to_string(),
                None if rep.complete => format!("ok ({} executions)", c.checked),
                None => format!("ok? ({} executions; the run was cut)", c.checked),
            };
            text += &format!("{:3} {:40} {s}\n", o.name(), o.what());
        }
        let (status, tone) = match (failed, rep.complete) {
            (true, _) => ("FAIL", Tone::Fail),
            (false, true) => ("ok", Tone::Pass),
            (false, false) => ("ok?", Tone::Other),
        };
        out.push(Section { name: format!("method {m}"), status: status.into(), tone, text, graphs: vec![] });
    }
    for (i, f) in rep.failures.iter().enumerate() {
        let mut text = format!("{}\nabstract program:\n", f.reason);
        for l in f.client.lines().filter(|l| !l.starts_with('#') && !l.starts_with('"')) {
            text += &format!("  {l}\n");
        }
        text += &f.execution;
        let graphs = f
            .graph
            .iter()
            .map(|g| {
                (
                    "the abstract execution beside its implementation; g dashed; the refuted edge red".to_string(),
                    g.clone(),
                )
            })
            .collect();
        out.push(Section {
            name: format!("#{} {} refuted for {}", i + 1, f.obligation.name(), f.methods.join(", ")),
            status: "FAIL".into(),
            tone: Tone::Fail,
            text,
            graphs,
        });
    }
    out
}
