//! `mowgli obligations`: the local-soundness proof obligations (LOCO Def. 3.13) to a bound.

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;
use std::process::ExitCode;

use super::common::{conclude, input_error, load_impl, run_inputs, ShapeArgs};
use super::progress::Progress;

/// `mowgli obligations --engine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    Explicit,
    Z3,
    Auto,
}

/// The arguments of `mowgli obligations`.
#[derive(clap::Args)]
pub struct Args {
    /// The implementation file (`specs/impls/*.impl`), with its `concretise` map.
    pub implementation: PathBuf,
    /// Abstract calls per thread.
    #[arg(long, value_name = "C", default_value_t = 2)]
    pub calls: usize,
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// Ignore the file's `concretise` lines: infer the whole map.
    #[arg(long)]
    pub infer_map: bool,
    /// Rings: leave out one-thread programs, whose thread writes and reads its own
    /// ring (where I_RBL refutes O2: see docs/obligations.md).
    #[arg(long)]
    pub no_self_ring: bool,
    /// Stop at the first refuted obligation.
    #[arg(long)]
    pub first_fail: bool,
    /// Stop after S seconds (the table then says how far it got). `--timeout` is
    /// the older spelling, kept as an alias (`refine` has the same option).
    #[arg(long = "time-limit", visible_alias = "timeout", value_name = "S", value_parser = super::common::seconds)]
    pub timeout: Option<f64>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    /// Run under another stamp order.
    #[arg(long, value_name = "FILE")]
    pub stamp_order: Option<PathBuf>,
    /// Iterations per loop that is not a spin loop.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub loop_bound: usize,
    /// Write the counterexample of every refuted obligation as `DIR/METHOD-OBLIGATION.dot`.
    #[arg(long, value_name = "DIR")]
    pub dot: Option<PathBuf>,
    /// Write the run as one HTML page, `DIR/index.html`: the verdict, every
    /// method's obligations, and each refutation with its picture as inline SVG
    /// (the refuted edge red).
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// The engine that enumerates the implementation's executions: `explicit`,
    /// `z3` (implementations over rdmawait or sv), or `auto` (per abstract
    /// program, the one the costs measured on programs of its shape say is
    /// cheaper; the summary reports the split). `auto` is the default: on every
    /// shipped implementation it gives the explicit engine's verdicts, and it
    /// checks I_MSWB's obligations in seconds where the explicit engine had not
    /// finished in 20 minutes (docs/obligations.md, "Engines").
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: Engine,
    /// Explicit engine: check every implementation execution on its own, never a
    /// class of executions under a partial witness that already satisfies every
    /// obligation (slower; to cross-check that shortcut).
    #[arg(long)]
    pub every_execution: bool,
    /// Z3 (and `auto`'s Z3 runs): one query per abstract program over the union of
    /// its groups of plain executions, each event guarded by its path condition,
    /// instead of one query per group (docs/obligations.md)
    #[arg(long)]
    pub z3_whole: bool,
    /// Also obligation D (LOCO Def. 3.5): the specification and each library the
    /// implementation uses are monotone and decomposable, on their own programs
    /// at the same bound.
    #[arg(long)]
    pub check_specs: bool,
    /// Check against this specification instead of the one the file's
    /// `implements` line names (same methods; e.g. `rbl_rfe`).
    #[arg(long, value_name = "LIB")]
    pub spec: Option<String>,
    /// Write each refutation's observing client as `DIR/NAME.litmus` (replayable
    /// with `mowgli refine IMPL --clients FILE`); without it, the client is printed.
    #[arg(long, value_name = "DIR")]
    pub observe_out: Option<PathBuf>,
    /// Seconds to search for a client observing each refutation (0: do not search).
    #[arg(long, value_name = "S", default_value_t = 20.0, value_parser = super::common::seconds)]
    pub observe_budget: f64,
    /// Check only the abstract programs (and, with `--check-specs`, the
    /// libraries) whose index is K-1 modulo N (1 ≤ K ≤ N); `mowgli merge`
    /// combines the `--json` reports of shards 1..N into the whole run's.
    #[arg(long, value_name = "K/N", visible_alias = "shard", value_parser = super::common::partition)]
    pub partition: Option<String>,
}

pub fn run(a: &Args, cat: &Catalogue) -> ExitCode {
    use mowgli_check::analyses::obligations::{self, Obligation};
    use mowgli_check::analyses::refine::gen::Partition;
    use mowgli_check::lang::maps;
    let Args {
        implementation,
        calls,
        shape,
        infer_map,
        no_self_ring,
        first_fail,
        timeout,
        json,
        stamp_order,
        loop_bound,
        dot,
        html,
        engine,
        every_execution,
        z3_whole,
        check_specs,
        spec,
        observe_out,
        observe_budget,
        partition,
    } = a;
    let fail = |m: String| input_error(*json, m);
    let partition = match partition.as_deref().map(Partition::parse).transpose() {
        Ok(p) => p.unwrap_or(Partition::ALL),
        Err(e) => return fail(format!("--partition: {e}")),
    };
    let file = implementation.display().to_string();
    let (order, imp) = match load_impl(implementation, stamp_order, spec, cat) {
        Ok(x) => x,
        Err(e) => return input_error(*json, e),
    };
    let map = if *infer_map { maps::ConcMap::default() } else { imp.map.clone() };
    let mut bounds = match shape.checked(&imp.implements, &imp.catalogue, ("--calls", *calls)) {
        Ok(b) => b,
        Err(e) => return input_error(*json, e),
    };
    bounds.self_ring = !no_self_ring;
    bounds.self_reading_writers = !no_self_ring;
    // the time limit covers generating the abstract programs too
    let started = std::time::Instant::now();
    let limit = timeout.map(std::time::Duration::from_secs_f64);
    let (all, generated_whole) =
        match obligations::abstract_programs_until(&imp, &order, &bounds, limit.map(|t| started + t)) {
            Ok((c, whole)) => (if whole { c } else { Vec::new() }, whole),
            Err(e) => return input_error(*json, imp.error(e)),
        };
    if !generated_whole {
        // none checked; the report is still the run's, incomplete (`mowgli merge` reads it)
        eprintln!(
            "inconclusive: the time limit passed while the abstract programs were generated (none checked): \
             lower `--calls`, `--threads` or `--values`, or raise `--time-limit`"
        );
    }
    // a shard checks the abstract programs of its partition; `global[i]` is the
    // index in the whole bound of the i-th of them
    let (global, clients): (Vec<usize>, Vec<obligations::Program>) =
        all.iter().cloned().enumerate().filter(|(i, _)| partition.contains(*i)).unzip();
    let progress = Progress::new("obligations", "abstract programs", Some(clients.len() as u64));
    let tick = progress.bar();
    let opts = obligations::Options {
        loop_bound: *loop_bound,
        time_limit: limit.map(|t| t.saturating_sub(started.elapsed())),
        first_fail: *first_fail,
        progress: Some(std::sync::Arc::new(move |n| tick.set_position(n as u64))),
        backend: if *engine == Engine::Z3 {
            mowgli_check::engines::explicit::Backend::Z3
        } else {
            mowgli_check::engines::explicit::Backend::Explicit
        },
        auto: *engine == Engine::Auto,
        auto_try_z3_ms: None,
        auto_budget_min_ms: None,
        z3_tree_above: None,
        z3_no_read_back: false,
        z3_whole: *z3_whole,
        every_execution: *every_execution,
        // each final refutation the moment it is found (smallest bound first)
        on_failure: (!*json).then(|| {
            let cb: obligations::OnFailure = std::sync::Arc::new(move |f: &obligations::Failure, ms: f64| {
                let (name, (t, c, n, _)) = (&f.program.0, f.program.1);
                mowgli_check::outln!(
                    "found after {ms:.0} ms: {} refuted for {} on {name} ({t} thread{} × {c} call{} × {n} node{})",
                    f.obligation.name(),
                    f.methods.join(", "),
                    if t == 1 { "" } else { "s" },
                    if c == 1 { "" } else { "s" },
                    if n == 1 { "" } else { "s" },
                );
            });
            cb
        }),
    };
    let rep = obligations::check_clients(&imp, &order, &clients, &map, &opts);
    progress.finish();
    let mut rep = match rep {
        Ok(r) => r,
        // a size limit of the unfolding: the run is inconclusive (exit 3), at the
        // method whose unfolding grew
        Err(e) if e.contains("unfolding was cut") => {
            let mut d = imp.error(e);
            d.limit = true;
            eprintln!("{d}");
            let decided = mowgli_check::analyses::verdict::Decided::new(
                mowgli_check::analyses::verdict::Verdict::Inconclusive,
                d.headline(),
            );
            return conclude(&decided, json.then(|| serde_json::json!({ "errors": [d] })));
        }
        Err(e) => return input_error(*json, imp.error(e)),
    };
    for r in &mut rep.programs {
        r.index = global.get(r.index).copied().unwrap_or(r.index);
    }
    rep.complete &= generated_whole;
    if *check_specs {
        use obligations::spec;
        // each library's D is checked by one shard
        for (i, lib) in spec::libraries_of(&imp.implements, &imp.uses).into_iter().enumerate() {
            if !partition.contains(i) {
                continue;
            }
            if imp.catalogue.library(&lib, &order).is_ok_and(|l| !spec::applies(l.as_ref())) {
                continue;
            }
            match spec::check_library(&lib, &order, cat, &bounds, opts.time_limit) {
                Ok(r) => rep.specs.push(r),
                Err(e) => return input_error(*json, imp.error(format!("D for `{lib}`: {e}"))),
            }
        }
    }
    // from each refutation to a client that observes it, or what was tried (issue 17)
    if *observe_budget > 0.0 && !rep.failures.is_empty() {
        let budget = std::time::Duration::from_secs_f64(*observe_budget);
        let until = limit.map(|t| started + t);
        obligations::observe::observe_all_until(&imp, &order, &mut rep, *loop_bound, budget, until);
        for o in &rep.observations {
            let (Some(dir), Some(name), Some(text)) = (observe_out, &o.name, &o.client) else { continue };
            let path = dir.join(format!("{name}.litmus"));
            if let Err(e) = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, text)) {
                return input_error(*json, mowgli_diag::Diagnostic::output(&path, format!("cannot write: {e}")));
            }
        }
    }
    if let Some(dir) = dot {
        for f in &rep.failures {
            let path = dir.join(format!("{}-{}.dot", f.methods.join("+"), f.obligation.name()));
            if let Err(e) = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, &f.dot)) {
                return input_error(*json, mowgli_diag::Diagnostic::output(&path, format!("cannot write: {e}")));
            }
        }
    }
    // the options that define the run: every shard of it has the same (`mowgli merge`)
    let mut run = serde_json::json!({
        "implementation": file, "calls": calls, "infer_map": infer_map,
        "no_self_ring": no_self_ring, "first_fail": first_fail, "time_limit": timeout,
        "stamp_order": stamp_order.as_ref().map(|p| p.display().to_string()), "loop_bound": loop_bound,
        "engine": format!("{engine:?}"), "every_execution": every_execution, "check_specs": check_specs,
        "spec": spec, "observe_budget": observe_budget,
    });
    if let (Some(r), serde_json::Value::Object(shape)) = (run.as_object_mut(), shape.json()) {
        r.extend(shape);
    }
    let mut doc = serde_json::to_value(&rep).unwrap_or_default();
    doc["abstract_programs"] = serde_json::Value::from(all.len());
    if !generated_whole {
        // the bound's count is unknown: `mowgli merge` takes the other shards'
        doc["abstract_programs"] = serde_json::Value::Null;
        doc["generation_cut"] = serde_json::Value::Bool(true);
    }
    let inputs = match run_inputs(&[("implementation", Some(implementation)), ("stamp_order", stamp_order.as_deref())])
    {
        Ok(i) => i,
        Err(e) => return fail(e),
    };
    let doc = mowgli_check::analyses::merge::stamp_with(doc, "obligations", partition, run, &inputs);
    // the bound is covered when every abstract program (of the partition) was
    // checked to the end and, with --check-specs, every library's D as well; a
    // refutation is a counterexample even when a limit stopped the run after it
    let mut decided = mowgli_check::analyses::merge::decide_obligations(&doc);
    if let Some(dir) = html {
        let summary = format!(
            "obligations of `{}` ({} over {}): {} methods, {} refutations",
            rep.implementation,
            rep.implements,
            rep.uses.join(", "),
            rep.methods.len(),
            rep.failures.len()
        );
        let page = super::common::html_page(&decided, summary, obligations::sections(&rep));
        if let Err(d) = super::common::write_html(dir, &page) {
            eprintln!("{d}");
            decided = mowgli_check::analyses::verdict::Decided::new(
                mowgli_check::analyses::verdict::Verdict::Error,
                format!("the HTML report in {} could not be written", dir.display()),
            );
        }
    }
    if *json {
        return conclude(&decided, Some(doc));
    } else {
        mowgli_check::outln!(
            "obligations of `{}` ({} over {}), bound: {} threads, {} nodes, {} calls per thread, values 1..{}{}",
            rep.implementation,
            rep.implements,
            rep.uses.join(", "),
            shape.threads,
            shape.nodes.unwrap_or(shape.threads),
            calls,
            shape.bounds(&rep.implements, cat, *calls).values,
            if partition.count > 1 {
                format!(
                    "; partition {}/{}: {} of the {} abstract programs",
                    partition.index,
                    partition.count,
                    clients.len(),
                    all.len()
                )
            } else {
                String::new()
            }
        );
        mowgli_check::out!("{:12}", "method");
        for o in Obligation::ALL {
            mowgli_check::out!(" {:>14}", o.name());
        }
        mowgli_check::outln!();
        for m in &rep.methods {
            mowgli_check::out!("{m:12}");
            for o in Obligation::ALL {
                let c = &rep.cells[m][&o];
                let s = match c.failure {
                    Some(i) => format!("FAIL (#{})", i + 1),
                    None if c.checked == 0 => "-".to_string(),
                    None if rep.complete => format!("ok ({})", c.checked),
                    None => format!("ok? ({})", c.checked),
                };
                mowgli_check::out!(" {s:>14}");
            }
            mowgli_check::outln!();
        }
        for (i, f) in rep.failures.iter().enumerate() {
            mowgli_check::outln!(
                "\n#{} {} ({}) refuted for {}: {}",
                i + 1,
                f.obligation.name(),
                f.obligation.what(),
                f.methods.join(", "),
                f.reason
            );
            mowgli_check::outln!("  abstract program:");
            for l in f.client.lines().filter(|l| !l.starts_with('#') && !l.starts_with('"')) {
                mowgli_check::outln!("    {l}");
            }
            for l in f.execution.lines() {
                mowgli_check::outln!("  {l}");
            }
            match rep.observations.get(i) {
                Some(o) => match (&o.name, &o.shape) {
                    (Some(name), Some(shape)) => match observe_out {
                        Some(dir) => mowgli_check::outln!(
                            "  observed by client {} ({shape}; found after {} of {} candidates): `mowgli refine {} --clients {}` replays it",
                            dir.join(format!("{name}.litmus")).display(),
                            o.tried,
                            o.candidates,
                            implementation.display(),
                            dir.join(format!("{name}.litmus")).display(),
                        ),
                        None => {
                            mowgli_check::outln!(
                                "  observed by client {name} ({shape}; found after {} of {} candidates; \
                                 `--observe-out DIR` writes it for `mowgli refine {} --clients`):",
                                o.tried,
                                o.candidates,
                                implementation.display(),
                            );
                            for l in o.client.as_deref().unwrap_or_default().lines() {
                                mowgli_check::outln!("    {l}");
                            }
                        }
                    },
                    _ => mowgli_check::outln!(
                        "  refuted, not observed by the {} clients tried of {} ({}){}{}",
                        o.tried,
                        o.candidates,
                        o.bound,
                        o.note.as_ref().map(|n| format!(": {n}")).unwrap_or_default(),
                        o.first_error
                            .as_ref()
                            .map(|e| format!("; {} could not be run, the first: {e}", o.errors))
                            .unwrap_or_default()
                    ),
                },
                None => mowgli_check::outln!("  (no client was searched for: --observe-budget 0)"),
            }
        }
        if !rep.inferred.is_empty() {
            mowgli_check::outln!("\ninferred concretisation entries (add them to the file to pin them):");
            for e in &rep.inferred {
                mowgli_check::outln!("  {}", e.render());
            }
        }
        let z3 = *engine == Engine::Z3;
        let counted = if z3 {
            format!(
                "{} abstract executions of groups of plain executions discharged by Z3 (unsat), {} implementation executions checked explicitly; {} Z3 queries, {} of them decided by the relation analysis without a solver call; {} witness trees ({} spurious models refined)",
                rep.plain_discharged, rep.executions, rep.z3_queries, rep.z3_static, rep.z3_trees, rep.z3_refined
            ) + &if *z3_whole {
                format!(
                    "; {} whole-program queries (path conditions), {} groups named by their models and checked per group, {} programs and {} groups (predicate not the union's) left per group",
                    rep.z3_whole_queries, rep.z3_whole_models, rep.z3_whole_fallbacks, rep.z3_whole_differing
                )
            } else {
                String::new()
            }
        } else {
            format!(
                "{} implementation executions ({} of them classes: executions under a partial witness that already satisfies every obligation, checked once)",
                rep.executions, rep.classes
            )
        };
        mowgli_check::outln!(
            "\nsummary: {} abstract programs, {} abstract executions, {counted}; {} obligations refuted{}; {:.1} ms",
            rep.clients,
            rep.abstract_executions,
            rep.failures.len(),
            if rep.complete { "" } else { " (stopped early: the bound was not covered)" },
            rep.millis
        );
        if let Some(sp) = &rep.split {
            mowgli_check::outln!(
                "engines (auto): {} programs finished explicit ({:.1} ms), {} programs Z3 ({:.1} ms); runs stopped at their budget: {} explicit, {} Z3 ({} programs switched engine, {} switches); Z3 measured cheaper on {} of {} program shapes",
                sp.explicit_programs,
                sp.explicit_ms,
                sp.z3_programs,
                sp.z3_ms,
                sp.explicit_given_up,
                sp.z3_given_up,
                sp.switched_programs,
                sp.switches,
                sp.z3_shapes,
                sp.shapes
            );
        }
        if z3 {
            mowgli_check::outln!("(ok (N): discharged on N abstract executions at this bound, each group of plain executions by one Z3 query over all its witnesses; - : no execution exercised it)");
        } else {
            mowgli_check::outln!("(ok (N): discharged on N executions at this bound, counting each class once; - : no execution exercised it)");
        }
        for d in &rep.specs {
            let mono = match &d.not_monotone {
                Some(why) => format!("FAILS: {why}"),
                None if !d.mentions_hb => "holds (the predicate does not mention hb)".to_string(),
                None => format!("holds on {} witnesses, {} one-pair hb extensions", d.witnesses, d.extensions),
            };
            let deco = match (&d.not_decomposable, &d.not_decomposable_sup) {
                (_, Some(why)) => format!("FAILS: {why}"),
                (Some(why), None) => format!(
                    "holds on {} executions, {} splits with so read as an inclusion (so ⊇ what the witness generates), but not with so as an equation: {why}",
                    d.executions, d.splits
                ),
                (None, None) => format!("holds on {} executions, {} splits", d.executions, d.splits),
            };
            mowgli_check::outln!(
                "D (Def. 3.5) for `{}` on its {} programs of the bound{}: monotone {mono}; decomposable {deco}",
                d.library,
                d.programs,
                if d.complete { "" } else { " (stopped early)" }
            );
        }
    }
    conclude(&decided, None)
}
