//! `mowgli refine`: bounded refinement (LOCO Def. 3.10) on given or generated clients.

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use mowgli_check::analyses::litmus;
use mowgli_check::analyses::refine::ClientVerdict;
use mowgli_check::analyses::verdict::{Decided, Verdict};
use mowgli_check::engines::explicit::Backend;

use super::common::{conclude, explain_error, input_error, load_impl, run_inputs, ShapeArgs};
use super::progress;
use super::refine_junit;

/// The default generated bound: clients of at most this many calls in all.
const DEFAULT_SIZE: usize = 4;

/// The arguments of `mowgli refine`.
#[derive(clap::Args)]
pub struct Args {
    /// The implementation file (`specs/impls/*.impl`).
    pub implementation: PathBuf,
    /// Client litmus files or directories over the implemented library.
    #[arg(long, value_name = "PATH", num_args = 1.., conflicts_with_all = ["calls", "size"])]
    pub clients: Vec<PathBuf>,
    #[command(flatten)]
    pub gen: Box<GenArgs>,
    /// Machine-readable output (one JSON document).
    #[arg(long)]
    pub json: bool,
    /// Run under another stamp order.
    #[arg(long, value_name = "FILE")]
    pub stamp_order: Option<PathBuf>,
    /// Iterations per loop that is not a spin loop.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub loop_bound: usize,
    /// Write the counterexample of every failing client as `DIR/CLIENT.dot`.
    #[arg(long, value_name = "DIR")]
    pub dot: Option<PathBuf>,
    /// Write the run as one HTML page, `DIR/index.html`: the verdict, every
    /// client (generated runs: every failing one) with its verdict, and each
    /// counterexample drawn as inline SVG.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// Check against this specification instead of the one the file's
    /// `implements` line names (same methods; e.g. `rbl_rfe` for an `rbl`
    /// implementation). Clients naming the declared library run against it.
    #[arg(long, value_name = "LIB")]
    pub spec: Option<String>,
    /// Outcome screening: search only the implementation's plain executions that
    /// could reach an outcome the specification forbids (same verdicts; the
    /// implementation outcome counts then cover only those, up to the first
    /// forbidden one; such a client's line says `screened`). `auto` (the
    /// default): on, except for a client whose conditions name locations (it is
    /// compared by whole outcomes); `off`: whole outcome counts.
    #[arg(long, value_enum, default_value = "auto")]
    pub screen: Screen,
    /// Shrink every failing client to a smallest one that still fails (fewer
    /// threads, calls, arguments, nodes; locations merged) and write it as
    /// `DIR/NAME-min.litmus`, its forbidden outcome as an expectation.
    #[arg(long, value_name = "DIR")]
    pub minimise: Option<PathBuf>,
    /// The engine that searches the implementation's executions: `explicit`, or
    /// `z3` (every model confirmed by the explicit checks; the specification's
    /// outcomes stay explicit).
    #[arg(long, value_enum, default_value = "explicit")]
    pub engine: mowgli_check::engines::explicit::Backend,
    /// Also write the results as JUnit XML to FILE: one test case per client (a
    /// generated run: one case for the whole bound).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Screen {
    Auto,
    On,
    Off,
}

/// Generated clients (`mowgli refine IMPL --calls C …`).
#[derive(clap::Args)]
pub struct GenArgs {
    /// Generate every client up to the bounds with at most C calls per thread
    /// (instead of `--clients`).
    #[arg(long, value_name = "C", help_heading = "Generated clients")]
    pub calls: Option<usize>,
    /// Calls in the whole client, at most (default: threads × calls). With neither
    /// `--clients` nor `--calls`, the default bound is every client of at most
    /// 4 calls in all (`--calls 4 --size 4`).
    #[arg(long, value_name = "S", help_heading = "Generated clients")]
    pub size: Option<usize>,
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// Barriers (bal) or rings (rbl), at most.
    #[arg(long, value_name = "B", default_value_t = 1, help_heading = "Generated clients")]
    pub objects: usize,
    /// A library whose calls observe the client (any library with locations and
    /// no barriers or rings; every method, arguments by their declared roles), or
    /// `none`. Default: the first library the implementation uses that has
    /// locations (rdmawait for barriers and sv for rings when the implemented
    /// library has no locations and uses none); the run prints the space.
    #[arg(long, value_name = "LIB", help_heading = "Generated clients")]
    pub observer: Option<String>,
    /// Locations of the observer library (at most; default 1 for rbl, 2 otherwise).
    #[arg(long, value_name = "M", help_heading = "Generated clients")]
    pub observer_locs: Option<usize>,
    /// Work identifiers per thread of the observer's calls (default 0: they are
    /// `_`, and a method that only waits for them, RDMA^WAIT's `Wait`, is left out).
    #[arg(long, value_name = "W", help_heading = "Generated clients")]
    pub observer_wids: Option<usize>,
    /// Check every generated client, without symmetry reduction.
    #[arg(long, help_heading = "Generated clients")]
    pub no_symmetry: bool,
    /// Check only the clients whose index is K-1 modulo N (1 ≤ K ≤ N); `mowgli
    /// merge` combines the `--json` reports of shards 1..N into the whole run's.
    #[arg(long, value_name = "K/N", visible_alias = "shard", value_parser = super::common::partition, help_heading = "Generated clients")]
    pub partition: Option<String>,
    /// Stop at the first failing client.
    #[arg(long, help_heading = "Generated clients")]
    pub first_fail: bool,
    /// Write each failing client as `DIR/NAME.litmus` (with the forbidden outcome as an expectation).
    #[arg(long, value_name = "DIR", help_heading = "Generated clients")]
    pub save_failing: Option<PathBuf>,
    /// Print the generated clients (of the partition) as litmus texts, without checking them.
    #[arg(long, help_heading = "Generated clients")]
    pub list_clients: bool,
    /// Stop after S seconds (given or generated clients): a client in its check
    /// then is stopped inconclusive, no new one starts, and the report says how
    /// far the run got.
    #[arg(long, value_name = "S", value_parser = super::common::seconds)]
    pub time_limit: Option<f64>,
    /// Worker threads (default: the available parallelism).
    #[arg(long, value_name = "J", help_heading = "Generated clients", value_parser = super::common::jobs)]
    pub jobs: Option<usize>,
}

pub fn run(a: Args, cat: &Catalogue) -> ExitCode {
    let Args {
        implementation,
        clients,
        gen,
        json,
        stamp_order,
        loop_bound,
        dot,
        html,
        spec,
        screen,
        minimise,
        engine,
        junit,
    } = a;
    // (`--clients` with `--calls` or `--size` is refused by the argument parser)
    if clients.is_empty() {
        refine_generated(
            &implementation,
            &gen,
            json,
            (&stamp_order, &spec, cat),
            (loop_bound, engine),
            (&dot, &minimise, &junit, &html),
            !matches!(screen, Screen::Off),
        )
    } else {
        // screening is measured faster on the shipped clients, same verdicts
        // (docs/performance.md): `auto` screens given clients too
        let on = !matches!(screen, Screen::Off);
        refine(
            &implementation,
            &clients,
            json,
            (&stamp_order, &spec, cat),
            (loop_bound, engine, gen.time_limit),
            (&dot, &minimise, &junit, &html),
            on,
        )
    }
}

/// `--dot`, `--minimise`, `--junit`, `--html`.
type Outputs<'a> = (&'a Option<PathBuf>, &'a Option<PathBuf>, &'a Option<PathBuf>, &'a Option<PathBuf>);

fn refine(
    implementation: &std::path::Path,
    clients: &[PathBuf],
    json: bool,
    (stamp_order, spec, cat): (&Option<PathBuf>, &Option<String>, &Catalogue),
    (loop_bound, engine, time_limit): (usize, Backend, Option<f64>),
    (dot, minimise, junit, html): Outputs,
    screen: bool,
) -> ExitCode {
    let (order, imp) = match load_impl(implementation, stamp_order, spec, cat) {
        Ok(x) => x,
        Err(e) => return input_error(json, e),
    };
    let mut minimised = Vec::new();
    let files = match litmus::collect(clients) {
        Ok(f) => f,
        Err(e) => return input_error(json, e),
    };
    let start = Instant::now();
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    let mut skipped = 0;
    let mut not_started = 0;
    let deadline = time_limit.map(|t| start + std::time::Duration::from_secs_f64(t));
    let mut cases = Vec::new();
    let mut sections = Vec::new();
    let progress = progress::Progress::new("refine", "clients", Some(files.len() as u64));
    for f in &files {
        progress.set_message(f.display().to_string());
        progress.inc(1);
        if deadline.is_some_and(|d| Instant::now() >= d) {
            not_started += 1;
            continue;
        }
        let started = Instant::now();
        let text = match mowgli_diag::read_source(f, &f.display().to_string()) {
            Ok(t) => t,
            Err(d) => {
                eprintln!("{d}");
                cases.push(refine_junit::error(&imp.name, &d.file, &d));
                errors.push(d);
                continue;
            }
        };
        let how = mowgli_check::analyses::refine::ClientCheck { loop_bound, screen, engine, deadline };
        match mowgli_check::analyses::refine::refine_client_on(&imp, &order, &f.display().to_string(), &text, &how) {
            Ok(r) if r.verdict == ClientVerdict::Skipped => skipped += 1,
            Ok(r) => {
                cases.push(refine_junit::client(&imp.name, &r, started.elapsed().as_secs_f64()));
                if !json {
                    mowgli_check::outln!(
                        "{:4}  {} ({}): {} implementation outcomes, {} specification outcomes{}{}{}",
                        r.verdict,
                        r.name,
                        r.file,
                        r.impl_outcomes,
                        r.spec_outcomes,
                        if r.impl_outcomes_complete && r.spec_outcomes_complete {
                            ""
                        } else {
                            " (screened: partial counts; `--screen off` for whole ones)"
                        },
                        if r.observed.is_empty() {
                            String::new()
                        } else {
                            format!(" (registers and the final values of {})", r.observed.join(", "))
                        },
                        if r.bounded { " [bounded: a loop reached the unrolling bound]" } else { "" }
                    );
                    if let Some(why) = &r.inconclusive {
                        mowgli_check::outln!("      inconclusive: {why}");
                    }
                    if r.vacuous {
                        mowgli_check::outln!(
                            "      warning: the implementation has no terminating execution on this client (vacuous)"
                        );
                    }
                    if r.spec_vacuous {
                        mowgli_check::outln!("      warning: {}", spec_vacuity(&r));
                    }
                    if r.vacuity_unknown {
                        mowgli_check::outln!("      note: screened; whether the implementation has an execution here is undecided (budget)");
                    }
                    if let Some(m) = &r.stuck_msg {
                        mowgli_check::outln!(
                            "      note: {} unfoldings of the implementation stopped at an error, first: {m}",
                            r.stuck
                        );
                    }
                    if let Some(c) = &r.counterexample {
                        let o: Vec<String> = c.outcome.iter().map(|(k, v)| format!("{k}={v}")).collect();
                        mowgli_check::outln!(
                            "      the implementation reaches {}, which the specification forbids:",
                            o.join("; ")
                        );
                        for l in c.execution.lines() {
                            mowgli_check::outln!("        {l}");
                        }
                    }
                }
                if let (Some(dir), Some(c)) = (dot, &r.counterexample) {
                    let path = dir.join(format!("{}.dot", r.name));
                    if let Err(e) = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, &c.dot)) {
                        let d = mowgli_diag::Diagnostic::output(&path, format!("cannot write: {e}"));
                        eprintln!("{d}");
                        errors.push(d);
                    }
                }
                if let (Some(dir), ClientVerdict::Fail) = (minimise, r.verdict) {
                    let file = f.display().to_string();
                    match mowgli_check::analyses::refine::minimise::minimise_to_on(
                        &imp, &order, &file, &text, loop_bound, dir, engine,
                    ) {
                        Ok(w) => {
                            if !json {
                                mowgli_check::outln!("      {}", w.line());
                            }
                            minimised.push(w);
                        }
                        Err(e) => {
                            eprintln!("{e}");
                            errors.push(e);
                        }
                    }
                }
                if html.is_some() {
                    sections.push(mowgli_check::analyses::refine::section(&r));
                }
                reports.push(r);
            }
            Err(e) => {
                eprintln!("{e}");
                cases.push(refine_junit::error(&imp.name, &f.display().to_string(), &e));
                errors.push(e);
            }
        }
    }
    progress.finish();
    let failed = reports.iter().filter(|r| r.verdict == ClientVerdict::Fail).count();
    let vacuous = reports.iter().filter(|r| r.vacuous).count();
    let spec_vacuous = reports.iter().filter(|r| r.spec_vacuous).count();
    let cut = reports.iter().filter(|r| r.verdict == ClientVerdict::Inconclusive).count();
    let mut decided =
        mowgli_check::analyses::refine::decide_clients(&reports, errors.len(), files.len(), &imp.implements);
    if not_started > 0 && decided.verdict == Verdict::Verified {
        decided = Decided::new(
            Verdict::Inconclusive,
            format!("the time limit stopped the run: {not_started} of {} tests not checked", files.len()),
        );
    }
    if reports.is_empty() && errors.is_empty() && not_started == 0 {
        // nothing was checked: an input error at the first path given (exit 2 always says where)
        let word = clients.first().map(|p| p.display().to_string()).unwrap_or_default();
        eprintln!("{}", mowgli_diag::Diagnostic::on_word(&word, decided.why.clone()));
    }
    if let Some(file) = junit {
        refine_junit::write(file, cases, &mut decided);
    }
    if let Some(dir) = html {
        let summary =
            format!("implementation `{}` of `{}`: {} clients, {failed} FAIL", imp.name, imp.implements, reports.len());
        if let Err(d) = super::common::write_html(dir, &super::common::html_page(&decided, summary, sections)) {
            eprintln!("{d}");
            decided =
                Decided::new(Verdict::Error, format!("the HTML report in {} could not be written", dir.display()));
        }
    }
    if json {
        let doc = serde_json::json!({
            "implementation": imp.name,
            "implements": imp.implements,
            "uses": imp.uses,
            "clients": reports,
            "minimised": minimised,
            "errors": errors,
            "summary": { "clients": reports.len(), "ok": reports.len() - failed - cut, "failed": failed,
                         "inconclusive": cut, "errors": errors.len(),
                         "skipped": skipped, "vacuous": vacuous, "spec_vacuous": spec_vacuous,
                         "millis": start.elapsed().as_secs_f64() * 1000.0 }
        });
        conclude(&decided, Some(doc))
    } else {
        mowgli_check::outln!(
            "summary: implementation `{}` of `{}` over {}: {} clients, {} ok, {} FAIL, {}{} errors{} ({} tests skipped: they do not use `{}`); {:.1} ms",
            imp.name,
            imp.implements,
            imp.uses.join(", "),
            reports.len(),
            reports.len() - failed - cut,
            failed,
            if cut > 0 { format!("{cut} INCONCLUSIVE, ") } else { String::new() },
            errors.len(),
            vacuity_counts(vacuous, spec_vacuous),
            skipped,
            imp.implements,
            start.elapsed().as_secs_f64() * 1000.0
        );
        conclude(&decided, None)
    }
}

fn refine_generated(
    implementation: &std::path::Path,
    args: &GenArgs,
    json: bool,
    (stamp_order, spec, cat): (&Option<PathBuf>, &Option<String>, &Catalogue),
    (loop_bound, engine): (usize, Backend),
    (dot, minimise, junit, html): Outputs,
    screen: bool,
) -> ExitCode {
    use mowgli_check::analyses::refine::gen::{self, Partition, Progress, RunOptions};

    let (order, imp) = match load_impl(implementation, stamp_order, spec, cat) {
        Ok(x) => x,
        Err(e) => return input_error(json, e),
    };
    let partition = match args.partition.as_deref().map(Partition::parse).transpose() {
        Ok(p) => p.unwrap_or(Partition::ALL),
        Err(e) => return input_error(json, e),
    };
    // the default bound (no `--clients`, `--calls` or `--size`): every client of at
    // most DEFAULT_SIZE calls in all, however they are spread over the threads
    let size = args.size.or(if args.calls.is_none() { Some(DEFAULT_SIZE) } else { None });
    let calls = args.calls.or(size).unwrap_or(1);
    let given = if args.calls.is_some() { "--calls" } else { "--size" };
    let mut bounds = match args.shape.checked(&imp.implements, &imp.catalogue, (given, calls)) {
        Ok(b) => b,
        Err(e) => return input_error(json, e),
    };
    bounds.size = size;
    bounds.objects = args.objects;
    bounds.symmetry = !args.no_symmetry;
    match args.observer.as_deref() {
        Some("none") => bounds.observer = None,
        Some(o) => bounds.observer = Some(o.to_string()),
        None => bounds.observe_by_default(&imp, &order),
    }
    if let Some(m) = args.observer_locs {
        bounds.observer_locs = m;
    }
    if let Some(w) = args.observer_wids {
        bounds.observer_wids = w;
    }
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let time_limit = args.time_limit.map(std::time::Duration::from_secs_f64);
    let opts = RunOptions { partition, first_fail: args.first_fail, loop_bound, jobs, time_limit, screen, engine };

    if args.list_clients {
        let g = match gen::Generator::in_catalogue(&imp.implements, &order, &imp.catalogue, &bounds) {
            Ok(g) => g,
            Err(e) => return input_error(json, imp.error(e)),
        };
        let (mut index, mut generated) = (0, 0);
        // in the order (and with the names) a run checks them
        for (size, part) in g.order() {
            let class = g.class_part(size, part, jobs);
            generated += class.generated;
            for i in 0..class.distinct() {
                if partition.contains(index) {
                    mowgli_check::outln!("{}", g.render(&class, i, &gen::client_name(&imp.implements, index)));
                }
                index += 1;
            }
        }
        // a listing, not a check: the output is litmus text only (no verdict line)
        eprintln!("{generated} clients generated, {index} after symmetry reduction");
        return Verdict::Verified.exit();
    }
    let bar = progress::Progress::new("refine", "clients", Some(0));
    let fails = std::sync::atomic::AtomicUsize::new(0);
    let started = Instant::now();
    let on_progress = |p: Progress| match p {
        Progress::Class { size, distinct, to_check } => {
            bar.inc_length(to_check as u64);
            bar.set_message(format!("size {size}: {distinct} clients"));
        }
        Progress::Checked { failed } => {
            if let Some((name, size)) = failed {
                // each failing client the moment it is found (the details follow the run)
                let n = fails.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                let ms = started.elapsed().as_secs_f64() * 1000.0;
                if !json {
                    mowgli_check::outln!("found after {ms:.0} ms: {name} (size {size}) fails ({n} so far)");
                }
            }
            bar.inc(1);
        }
    };
    let rep = match gen::run(&imp, &order, &bounds, &opts, &on_progress) {
        Ok(r) => r,
        Err(e) => {
            bar.finish();
            return input_error(json, imp.error(e));
        }
    };
    bar.finish();

    let mut write_errors = Vec::new();
    if let Some(dir) = &args.save_failing {
        for f in &rep.failures {
            let path = dir.join(format!("{}.litmus", f.name));
            match std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, &f.text)) {
                Ok(()) => {
                    if !json {
                        eprintln!("wrote {}", path.display())
                    }
                }
                Err(e) => {
                    write_errors.push(mowgli_diag::Diagnostic::output(&path, format!("cannot write: {e}")).to_string())
                }
            }
        }
    }
    if let Some(dir) = dot {
        for f in &rep.failures {
            let Some(c) = &f.report.counterexample else { continue };
            let path = dir.join(format!("{}.dot", f.name));
            if let Err(e) = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, &c.dot)) {
                write_errors.push(mowgli_diag::Diagnostic::output(&path, format!("cannot write: {e}")).to_string());
            }
        }
    }
    let mut minimised = Vec::new();
    if let Some(dir) = minimise {
        for f in &rep.failures {
            match mowgli_check::analyses::refine::minimise::minimise_to_on(
                &imp, &order, &f.name, &f.text, loop_bound, dir, engine,
            ) {
                Ok(w) => minimised.push(w),
                Err(e) => write_errors.push(e.headline()),
            }
        }
    }
    for e in &write_errors {
        eprintln!("{e}");
    }
    // the options that define the run: every shard of it has the same (`mowgli merge`)
    let mut run = serde_json::json!({
        "implementation": implementation.display().to_string(),
        "calls": calls, "size": size, "objects": args.objects,
        "observer": args.observer, "observer_locs": args.observer_locs, "observer_wids": args.observer_wids, "no_symmetry": args.no_symmetry,
        "first_fail": args.first_fail, "time_limit": args.time_limit,
        "stamp_order": stamp_order.as_ref().map(|p| p.display().to_string()), "spec": spec,
        "loop_bound": loop_bound, "screen": screen,
    });
    if let (Some(r), serde_json::Value::Object(shape)) = (run.as_object_mut(), args.shape.json()) {
        r.extend(shape);
    }
    let inputs = match run_inputs(&[("implementation", Some(implementation)), ("stamp_order", stamp_order.as_deref())])
    {
        Ok(i) => i,
        Err(e) => return input_error(json, e),
    };
    let doc = mowgli_check::analyses::merge::stamp_with(
        serde_json::json!({
            "implementation": imp.name,
            "implements": imp.implements,
            "uses": imp.uses,
            "generated": rep,
            "minimised": minimised,
        }),
        "refine",
        partition,
        run,
        &inputs,
    );
    // clients that could not be checked (e.g. too many values: a size limit) and the
    // time limit leave the bound uncovered; a failure is a counterexample anyway
    let mut decided = mowgli_check::analyses::merge::decide_refine(&doc, write_errors.len());
    if write_errors.is_empty() {
        explain_error(&decided, &["--calls", "--size", "--observer"]);
    }
    if let Some(file) = junit {
        let details = rep.failures.first().map(|f| format!("{} (size {}):\n{}", f.name, f.size, f.text));
        let case = refine_junit::run(&imp.name, rep.millis / 1000.0, &decided, &details.unwrap_or_default());
        refine_junit::write(file, vec![case], &mut decided);
    }
    if let Some(dir) = html {
        let sections = rep.failures.iter().map(|f| mowgli_check::analyses::refine::section(&f.report)).collect();
        let summary = format!(
            "implementation `{}` of `{}`: {} failing generated clients",
            imp.name,
            imp.implements,
            rep.failures.len()
        );
        if let Err(d) = super::common::write_html(dir, &super::common::html_page(&decided, summary, sections)) {
            eprintln!("{d}");
            decided =
                Decided::new(Verdict::Error, format!("the HTML report in {} could not be written", dir.display()));
        }
    }
    if json {
        conclude(&decided, Some(doc))
    } else {
        let b = &rep.bounds;
        mowgli_check::outln!(
            "generated clients of `{}`: up to {} threads on up to {} nodes, {} calls per thread{}, {} locations{}, values 1..={}{}{}",
            rep.library,
            b.threads,
            b.nodes,
            b.calls,
            b.size.map(|s| format!(" and {s} in all")).unwrap_or_default(),
            b.locs,
            match &b.observer {
                Some(o) => format!(" (+ {} `{o}` locations)", b.observer_locs),
                None => String::new(),
            },
            b.values,
            if b.symmetry { "" } else { " (no symmetry reduction)" },
            if rep.partition.count > 1 {
                format!("; partition {}/{}", rep.partition.index, rep.partition.count)
            } else {
                String::new()
            }
        );
        mowgli_check::outln!("client space: {}", rep.space);
        for c in &rep.classes {
            mowgli_check::outln!(
                "  size {:2}: {:8} generated, {:7} distinct, {:7} checked, {} FAIL",
                c.size,
                c.generated,
                c.distinct,
                c.checked,
                c.failed
            );
        }
        if let Some(f) = rep.failures.first() {
            let r = &f.report;
            mowgli_check::outln!("first failing client (index {}, {} calls):", f.index, f.size);
            for l in f.text.lines() {
                mowgli_check::outln!("  {l}");
            }
            if let Some(c) = &r.counterexample {
                mowgli_check::outln!("the implementation execution:");
                for l in c.execution.lines() {
                    mowgli_check::outln!("    {l}");
                }
            }
        }
        for w in &minimised {
            mowgli_check::outln!("{} ({}): {}", w.client, w.file, w.line());
        }
        if let Some(e) = &rep.first_error {
            mowgli_check::outln!(
                "{}: {e}",
                mowgli_check::analyses::merge::first_error_label(rep.first_error_inconclusive)
            );
        }
        if let Some((name, ms)) = &rep.slowest {
            mowgli_check::outln!("slowest client: {name} ({ms:.1} ms; `--list-clients` prints it)");
        }
        mowgli_check::outln!(
            "summary: implementation `{}` of `{}` over {}: {} clients generated, {} after symmetry reduction, {} checked{}: {} ok, {} FAIL, {}{} errors{}{}{}{}{}; {:.1} ms",
            imp.name,
            imp.implements,
            imp.uses.join(", "),
            rep.generated,
            rep.distinct,
            rep.checked,
            if rep.partition.count > 1 {
                format!(" (partition {}/{})", rep.partition.index, rep.partition.count)
            } else {
                String::new()
            },
            rep.ok,
            rep.failed,
            if rep.inconclusive > 0 { format!("{} INCONCLUSIVE, ", rep.inconclusive) } else { String::new() },
            rep.errors - rep.inconclusive,
            vacuity_counts(rep.vacuous, rep.spec_vacuous),
            if rep.vacuity_unknown > 0 {
                format!(", {} with vacuity undecided (the search for any execution ran out of budget)", rep.vacuity_unknown)
            } else {
                String::new()
            },
            if rep.screened > 0 {
                format!(
                    ", {} screened ({} without any witness search: every outcome their unfoldings can combine is allowed)",
                    rep.screened, rep.screened_all
                )
            } else {
                String::new()
            },
            if rep.bounded > 0 { format!(", {} bounded", rep.bounded) } else { String::new() },
            if rep.timed_out {
                " (stopped by the time limit)"
            } else if rep.complete {
                ""
            } else {
                " (stopped at the first failure)"
            },
            rep.millis
        );
        conclude(&decided, None)
    }
}

/// What a client on which the specification has no consistent execution means for its verdict.
fn spec_vacuity(r: &mowgli_check::analyses::refine::ClientReport) -> &'static str {
    if r.vacuous {
        "the specification has no consistent execution on this client either (vacuous: nothing was compared)"
    } else {
        "the specification has no consistent execution on this client (vacuous): every outcome of the \
         implementation is outside it; the client is likely outside the library's contract"
    }
}

/// The summary's counts of vacuous clients, when there are any.
fn vacuity_counts(vacuous: usize, spec_vacuous: usize) -> String {
    let mut s = String::new();
    if vacuous > 0 {
        s += &format!(", {vacuous} vacuous (no implementation outcome)");
    }
    if spec_vacuous > 0 {
        s += &format!(", {spec_vacuous} specification-vacuous (no specification outcome)");
    }
    s
}
