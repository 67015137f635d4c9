//! A `[[refine]]` entry: its clients checked as `mowgli refine IMPL --clients`
//! checks them, and its generated clients as `mowgli refine IMPL --calls …` does,
//! stopping at the first counterexample (the verdict needs no second one). With
//! both, the entry's verdict is the stronger of the two.

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use mowgli_core::StampOrder;

use super::{implementation, stamp_order, Ran};
use crate::analyses::litmus;
use crate::analyses::refine::gen::{self, Partition, RunOptions};
use crate::analyses::refine::{decide_clients, refine_client_on, ClientCheck, ClientVerdict};
use crate::analyses::verdict::{Decided, Verdict};
use crate::engines::explicit::Backend;
use crate::lang::implementation::Implementation;
use crate::lang::project::{Project, RefineEngine, RefineEntry};

/// The default generated bound, as `mowgli refine`'s: every client of at most 4 calls in all.
const DEFAULT_SIZE: usize = 4;

pub(super) fn run(
    project: &Project,
    e: &RefineEntry,
    time_limit: Option<Duration>,
    jobs: Option<usize>,
    cat: &Catalogue,
) -> Ran {
    let order = match stamp_order(project, &e.stamp_order) {
        Ok(o) => o,
        Err(r) => return r,
    };
    let imp = match implementation(project, &e.implementation, &e.spec, &order, cat) {
        Ok(i) => i,
        Err(r) => return r,
    };
    let engine = match e.engine {
        RefineEngine::Explicit => Backend::Explicit,
        RefineEngine::Z3 => Backend::Z3,
    };
    let loop_bound = e.loop_bound.unwrap_or(4);
    let start = Instant::now();
    let mut parts = Vec::new();
    if !e.clients.is_empty() {
        parts.push(clients(project, e, &imp, &order, (loop_bound, engine), time_limit));
    }
    if e.generates() {
        let left = time_limit.map(|t| t.saturating_sub(start.elapsed()));
        parts.push(generated(e, &imp, &order, (loop_bound, engine), left, jobs));
    }
    combine(parts)
}

/// The stronger verdict of the parts, with both reasons when they differ in kind.
fn combine(parts: Vec<Ran>) -> Ran {
    let mut it = parts.into_iter();
    let Some(mut acc) = it.next() else { return Ran::error("nothing to check") };
    for r in it {
        let verdict = acc.decided.verdict.max(r.decided.verdict);
        let why = format!("clients: {}; generated: {}", acc.decided.why, r.decided.why);
        acc.decided = Decided::new(verdict, why);
        acc.details.extend(r.details);
        acc.graphs.extend(r.graphs);
    }
    acc
}

fn clients(
    project: &Project,
    e: &RefineEntry,
    imp: &Implementation,
    order: &StampOrder,
    (loop_bound, engine): (usize, Backend),
    time_limit: Option<Duration>,
) -> Ran {
    let paths: Vec<PathBuf> = e.clients.iter().map(|p| project.path(p.get_ref())).collect();
    let files = match litmus::collect(&paths) {
        Ok(f) => f,
        Err(d) => return Ran::error(d),
    };
    let start = Instant::now();
    let (mut reports, mut details) = (Vec::new(), Vec::new());
    let (mut errors, mut not_started) = (0, 0);
    for f in &files {
        if time_limit.is_some_and(|t| start.elapsed() >= t) {
            not_started += 1;
            continue;
        }
        let file = f.display().to_string();
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(err) => {
                errors += 1;
                details.push(format!("{file}: cannot read: {err}"));
                continue;
            }
        };
        // screened, as `mowgli refine --clients` runs by default (same verdicts)
        let deadline = time_limit.map(|t| start + t);
        let how = ClientCheck { loop_bound, screen: true, engine, deadline };
        match refine_client_on(imp, order, &file, &text, &how) {
            Ok(r) if r.verdict == ClientVerdict::Skipped => {}
            Ok(r) => {
                if let Some(c) = &r.counterexample {
                    let o: Vec<String> = c.outcome.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    let mut d = format!(
                        "{} ({}): the implementation reaches {}, which the specification forbids",
                        r.name,
                        r.file,
                        o.join("; ")
                    );
                    // the execution of the first failing client only: the others are named
                    if reports.iter().all(|p: &crate::analyses::refine::ClientReport| p.counterexample.is_none()) {
                        d += &format!(":\n{}", indent(&c.execution));
                    }
                    details.push(d);
                }
                if let Some(why) = &r.inconclusive {
                    details.push(format!("{} ({}): inconclusive: {why}", r.name, r.file));
                }
                reports.push(r);
            }
            Err(d) => {
                errors += 1;
                details.push(d.render());
            }
        }
    }
    let mut decided = decide_clients(&reports, errors, files.len(), &imp.implements);
    if not_started > 0 && decided.verdict == Verdict::Verified {
        decided = Decided::new(
            Verdict::Inconclusive,
            format!("the time limit stopped the run: {not_started} of {} clients not checked", files.len()),
        );
    }
    let graphs = reports
        .iter()
        .filter_map(|r| r.counterexample.as_ref()?.graph.clone().map(|g| (counterexample_caption(&r.name), g)))
        .collect();
    Ran { decided, details, graphs }
}

fn generated(
    e: &RefineEntry,
    imp: &Implementation,
    order: &StampOrder,
    (loop_bound, engine): (usize, Backend),
    time_limit: Option<Duration>,
    jobs: Option<usize>,
) -> Ran {
    let size = e.size.or(if e.calls.is_none() { Some(DEFAULT_SIZE) } else { None });
    let calls = e.calls.or(size).unwrap_or(1);
    let threads = e.threads.as_ref().map_or(2, |t| *t.get_ref());
    let mut b = gen::Bounds::in_catalogue(&imp.implements, &imp.catalogue, threads, e.nodes.unwrap_or(threads), calls);
    b.size = size;
    if let Some(l) = e.locs {
        b.locs = l;
    }
    if let Some(v) = e.values {
        b.values = v;
    }
    b.wids = e.wids.unwrap_or(1);
    b.tuple_size = e.tuple_size.unwrap_or(2);
    b.objects = e.objects.unwrap_or(1);
    b.symmetry = e.symmetry.unwrap_or(true);
    match e.observer.as_deref() {
        Some("none") => b.observer = None,
        Some(o) => b.observer = Some(o.to_string()),
        None => b.observe_by_default(imp, order),
    }
    if let Some(m) = e.observer_locs {
        b.observer_locs = m;
    }
    if let Some(w) = e.observer_wids {
        b.observer_wids = w;
    }
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let opts =
        RunOptions { partition: Partition::ALL, first_fail: true, loop_bound, jobs, time_limit, screen: true, engine };
    let rep = match gen::run(imp, order, &b, &opts, &|_| {}) {
        Ok(r) => r,
        Err(err) => return Ran::error(format!("{}: {err}", imp.file)),
    };
    let mut details = Vec::new();
    if let Some(f) = rep.failures.first() {
        let mut d =
            format!("generated client {} (size {}) reaches an outcome the specification forbids:\n", f.name, f.size);
        d += &indent(&f.text);
        if let Some(c) = &f.report.counterexample {
            d += &format!("\nthe implementation execution:\n{}", indent(&c.execution));
        }
        details.push(d);
    }
    if let Some(err) = &rep.first_error {
        let cut = rep.inconclusive.min(rep.errors);
        details.push(format!(
            "{cut} clients inconclusive, cut by a limit, and {} could not be checked; the first: {err}",
            rep.errors - cut
        ));
    }
    let doc = crate::analyses::merge::stamp(
        serde_json::json!({ "generated": rep }),
        "refine",
        Partition::ALL,
        serde_json::Value::Null,
    );
    let graphs = rep
        .failures
        .first()
        .and_then(|f| f.report.counterexample.as_ref()?.graph.clone().map(|g| (counterexample_caption(&f.name), g)))
        .into_iter()
        .collect();
    Ran { decided: crate::analyses::merge::decide_refine(&doc, 0), details, graphs }
}

/// The caption of a client's counterexample in the HTML report.
fn counterexample_caption(client: &str) -> String {
    format!("{client}: an implementation execution whose outcome the specification forbids")
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}
