//! `mowgli axioms LIB.lib`: axiom sensitivity of a library file (drop or weaken
//! each named axiom in turn, drop each so term; docs/sensitivity.md, "Axiom
//! sensitivity").

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;
use std::process::ExitCode;

use mowgli_check::analyses::axioms::{self, Options};
use mowgli_check::analyses::explore::SearchOptions;
use mowgli_check::analyses::refine::gen::{Bounds, Partition};
use mowgli_check::analyses::sensitivity::{Check, CheckResult, Method};
use mowgli_check::analyses::verdict::{Decided, Verdict};
use mowgli_libs::orders;

use super::common::{conclude, input_error, SuiteArgs};

/// The arguments of `mowgli axioms`.
#[derive(clap::Args)]
pub struct Args {
    /// The library file (`specs/libs/NAME.lib`).
    pub library: PathBuf,
    /// Litmus files or directories run with and without each axiom (the tests of
    /// the library, e.g. the paper suite `specs/litmus`).
    pub paths: Vec<PathBuf>,
    /// No search of generated programs.
    #[arg(long)]
    pub no_search: bool,
    /// Only drop each axiom (no `acyclic` → `irreflexive`, no union or so terms
    /// dropped).
    #[arg(long)]
    pub drops_only: bool,
    #[command(flatten)]
    pub bounds: SuiteArgs,
    /// Distinguishing generated programs kept per axiom (smallest first).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub max: usize,
    /// An implementation (`.impl`) implementing or using the library: its
    /// obligations and its refinement on generated clients are checked with and
    /// without each axiom. Repeatable.
    #[arg(long = "impl", value_name = "FILE")]
    pub impls: Vec<PathBuf>,
    /// Threads of the implementation checks' clients and abstract programs.
    #[arg(long, value_name = "T", default_value_t = 2)]
    pub impl_threads: usize,
    /// Nodes of the implementation checks.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub impl_nodes: usize,
    /// Calls per thread of the implementation checks.
    #[arg(long, value_name = "C", default_value_t = 1)]
    pub calls: usize,
    /// Observer library of the generated clients and programs (as `mowgli refine
    /// --observer`).
    #[arg(long, value_name = "LIB")]
    pub observer: Option<String>,
    /// Unrolling bound of non-spin loops.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub loop_bound: usize,
    /// Worker threads of the search (default: the available parallelism).
    #[arg(long, value_name = "J", value_parser = super::common::jobs)]
    pub jobs: Option<usize>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: &Args, cat: &Catalogue) -> ExitCode {
    let order = orders::default_order();
    let spec = match mowgli_spec::parse_file(&a.library) {
        Ok(s) => s,
        Err(d) => return input_error(a.json, d.to_string()),
    };
    if spec.axioms.is_empty() {
        return input_error(a.json, format!("{}:0:0: `{}` states no named axiom", a.library.display(), spec.name));
    }
    if a.paths.is_empty() && a.no_search && a.impls.is_empty() {
        return input_error(
            a.json,
            "--no-search:0:0: nothing to check: no litmus paths, no generated programs (--no-search) and no \
             implementation (--impl)",
        );
    }
    // the implementations may name the library (it may be known from this file only)
    let cat = &cat.with_spec(&spec);
    let mut checks = Vec::new();
    for f in &a.impls {
        let imp = match mowgli_check::lang::implementation::Implementation::load(f, &order, cat) {
            Ok(i) => i,
            Err(e) => return input_error(a.json, e.to_string()),
        };
        for method in [Method::Refine, Method::Obligations] {
            let mut b = Bounds::in_catalogue(&imp.implements, cat, a.impl_threads, a.impl_nodes, a.calls);
            // rings as the paper's tests have them, as `mowgli cells` (its writer does
            // not read it: docs/obligations.md#self-read-rings)
            b.self_ring = false;
            b.self_reading_writers = false;
            if a.observer.is_some() {
                b.observer = a.observer.clone();
            }
            checks.push(Check { implementation: f.clone(), method, bounds: b });
        }
    }
    let jobs = a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let search = (!a.no_search).then(|| SearchOptions {
        library: spec.name.clone(),
        bounds: {
            let mut b = a.bounds.bounds(1).gen_bounds(&spec.name, cat);
            // a library whose calls return nothing (a lock) is observed through another
            b.observer = a.observer.clone();
            b
        },
        max: Some(a.max),
        jobs,
        partition: Partition::ALL,
    });
    let opts = Options { corpus: a.paths.clone(), search, checks, loop_bound: a.loop_bound, drops_only: a.drops_only };
    let json = a.json;
    let spinner = super::progress::Progress::spinner("axioms", "");
    let progress = |what: &str| {
        spinner.set_message(what.to_string());
        if !json {
            spinner.note(&format!("{what} …"));
        }
    };
    let rep = axioms::run(&a.library, &order, cat, &opts, &progress);
    spinner.finish();
    let rep = match rep {
        Ok(r) => r,
        Err(e) => return input_error(json, e),
    };
    let errors: Vec<String> = rep.axioms.iter().flat_map(|f| f.errors()).collect();
    let told: Vec<&str> = rep.axioms.iter().filter(|f| f.told_apart() > 0).map(|f| f.variant.as_str()).collect();
    let covered = rep.axioms.iter().all(|f| f.covered());
    // as `mowgli explore`: a test or check telling the library and a variant apart
    // is a counterexample (to "the axiom changes nothing")
    let verdict = Verdict::of(!errors.is_empty(), !told.is_empty(), covered);
    let decided = Decided::new(
        verdict,
        match verdict {
            Verdict::Error => format!("{} runs failed", errors.len()),
            Verdict::Counterexample => format!(
                "{} of {} weakenings of {} are observable: {}",
                told.len(),
                rep.axioms.len(),
                rep.library,
                told.join(", ")
            ),
            Verdict::Inconclusive => "no weakening changes anything, but a search stopped before its bounds".into(),
            Verdict::Verified => {
                format!("no weakening of {} changes any test or check up to the bounds", rep.library)
            }
        },
    );
    if json {
        return conclude(&decided, Some(serde_json::to_value(&rep).unwrap_or_default()));
    }
    let status = |r: &CheckResult| match (&r.error, r.holds) {
        (Some(_), _) => "error".to_string(),
        (None, true) => format!("holds ({})", r.checked),
        (None, false) => "REFUTED".to_string(),
    };
    for f in &rep.axioms {
        let at = if f.at.is_empty() { String::new() } else { format!(" ({})", f.at) };
        mowgli_check::outln!("== {}{at}: {}", f.description, f.variant);
        if let Some(c) = &f.corpus {
            mowgli_check::outln!("  corpus: {} tests, {} differ, {} the same", c.tests, c.differences.len(), c.same);
            for d in &c.differences {
                mowgli_check::outln!(
                    "    {} ({}): {} outcomes → {}",
                    d.name,
                    d.file,
                    d.base_outcomes,
                    d.variant_outcomes
                );
                for o in &d.only_variant {
                    mowgli_check::outln!("      only weakened: {o}");
                }
                for o in &d.only_base {
                    mowgli_check::outln!("      only as written: {o}");
                }
            }
        }
        if let Some(s) = &f.search {
            let per: Vec<String> = s.classes.iter().map(|c| format!("{}: {}", c.size, c.checked)).collect();
            mowgli_check::outln!(
                "  generated: {} programs (per size {}), {} distinguishing{}",
                s.checked,
                per.join(", "),
                s.found.len(),
                if s.exhausted { " (every size up to the bounds searched)" } else { "" }
            );
            for d in &s.found {
                mowgli_check::outln!("    {} ({} instructions)", d.name, d.size);
                for o in &d.only_variant {
                    mowgli_check::outln!("      only weakened: {o}");
                }
            }
            if let Some(d) = s.found.first() {
                mowgli_check::outln!("  smallest:");
                for l in d.base_text.lines().filter(|l| !l.starts_with('#')) {
                    mowgli_check::outln!("    {l}");
                }
            }
        }
        for c in &f.checks {
            mowgli_check::outln!(
                "  {:32} as written: {:>14}  weakened: {:>14}",
                c.check,
                status(&c.base),
                status(&c.variant)
            );
            if c.broken() {
                mowgli_check::outln!("    stops holding: {}", c.variant.failure.as_deref().unwrap_or(""));
            }
        }
        mowgli_check::outln!("  {:.1} ms", f.millis);
    }
    for e in &errors {
        mowgli_check::outln!("error: {e}");
    }
    mowgli_check::outln!(
        "summary: {} ({}): {} weakenings, {} observable, {} checks per weakening; {:.1} ms",
        rep.library,
        rep.file,
        rep.axioms.len(),
        told.len(),
        rep.base_checks.len(),
        rep.millis
    );
    conclude(&decided, None)
}
