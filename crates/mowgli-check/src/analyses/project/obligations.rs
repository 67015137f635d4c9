//! An `[[obligations]]` entry: the local-soundness obligations checked on every
//! abstract program of its bound, as `mowgli obligations` checks them, stopping at
//! the first refutation (no observing client is searched: `mowgli obligations`
//! itself does that).

use mowgli_libs::catalogue::Catalogue;
use std::time::Duration;

use super::{implementation, stamp_order, Ran};
use crate::analyses::obligations::{self, spec, Options};
use crate::analyses::refine::gen::{self, Partition};
use crate::analyses::verdict::{Decided, Verdict};
use crate::engines::explicit::Backend;
use crate::lang::maps::ConcMap;
use crate::lang::project::{ObligationsEngine, ObligationsEntry, Project};

pub(super) fn run(project: &Project, e: &ObligationsEntry, time_limit: Option<Duration>, cat: &Catalogue) -> Ran {
    let order = match stamp_order(project, &e.stamp_order) {
        Ok(o) => o,
        Err(r) => return r,
    };
    let imp = match implementation(project, &e.implementation, &e.spec, &order, cat) {
        Ok(i) => i,
        Err(r) => return r,
    };
    let threads = e.threads.unwrap_or(2);
    let mut bounds = gen::Bounds::in_catalogue(
        &imp.implements,
        &imp.catalogue,
        threads,
        e.nodes.unwrap_or(threads),
        e.calls.unwrap_or(2),
    );
    if let Some(l) = e.locs {
        bounds.locs = l;
    }
    bounds.values = e.values.unwrap_or(1);
    bounds.wids = e.wids.unwrap_or(1);
    bounds.tuple_size = e.tuple_size.unwrap_or(2);
    bounds.self_ring = !e.no_self_ring;
    bounds.self_reading_writers = !e.no_self_ring;
    // the time limit covers generating the abstract programs too
    let started = std::time::Instant::now();
    let programs = match obligations::abstract_programs_until(&imp, &order, &bounds, time_limit.map(|t| started + t)) {
        Ok((p, true)) => p,
        Ok((p, false)) => {
            let why = format!(
                "the time limit passed while the abstract programs were generated ({} by then, none checked)",
                p.len()
            );
            return Ran::new(Decided::new(Verdict::Inconclusive, why), Vec::new());
        }
        Err(err) => return Ran::error(format!("{}: {err}", imp.file)),
    };
    let opts = Options {
        loop_bound: e.loop_bound.unwrap_or(4),
        time_limit: time_limit.map(|t| t.saturating_sub(started.elapsed())),
        first_fail: true,
        progress: None,
        backend: if e.engine == ObligationsEngine::Z3 { Backend::Z3 } else { Backend::Explicit },
        every_execution: false,
        auto: e.engine == ObligationsEngine::Auto,
        auto_try_z3_ms: None,
        auto_budget_min_ms: None,
        z3_tree_above: None,
        z3_no_read_back: false,
        z3_whole: false,
        on_failure: None,
    };
    let map = if e.infer_map { ConcMap::default() } else { imp.map.clone() };
    let mut rep = match obligations::check_clients(&imp, &order, &programs, &map, &opts) {
        Ok(r) => r,
        Err(err) => return Ran::error(format!("{}: {err}", imp.file)),
    };
    if e.check_specs {
        for lib in spec::libraries_of(&imp.implements, &imp.uses) {
            if imp.catalogue.library(&lib, &order).is_ok_and(|l| !spec::applies(l.as_ref())) {
                continue;
            }
            match spec::check_library(&lib, &order, cat, &bounds, opts.time_limit) {
                Ok(r) => rep.specs.push(r),
                Err(err) => return Ran::error(format!("{}: D for `{lib}`: {err}", imp.file)),
            }
        }
    }
    let mut details: Vec<String> = rep
        .failures
        .iter()
        .map(|f| {
            let program: Vec<&str> = f.client.lines().filter(|l| !l.starts_with('#') && !l.starts_with('"')).collect();
            format!(
                "{} ({}) refuted for {}: {}\n  abstract program:\n    {}",
                f.obligation.name(),
                f.obligation.what(),
                f.methods.join(", "),
                f.reason,
                program.join("\n    ")
            )
        })
        .collect();
    for d in &rep.specs {
        if let Some(why) = d.not_monotone.as_ref().or(d.not_decomposable_sup.as_ref()) {
            details.push(format!("D (Def. 3.5) fails for `{}`: {why}", d.library));
        }
    }
    let mut doc = serde_json::to_value(&rep).unwrap_or_default();
    doc["abstract_programs"] = serde_json::Value::from(programs.len());
    let doc = crate::analyses::merge::stamp(
        doc,
        "obligations",
        Partition::ALL,
        serde_json::json!({ "timeout": time_limit.map(|t| t.as_secs_f64()) }),
    );
    let graphs = rep
        .failures
        .iter()
        .filter_map(|f| {
            let caption = format!("{} refuted for {}: the refuted edge red", f.obligation.name(), f.methods.join(", "));
            f.graph.clone().map(|g| (caption, g))
        })
        .collect();
    Ran { decided: crate::analyses::merge::decide_obligations(&doc), details, graphs }
}
