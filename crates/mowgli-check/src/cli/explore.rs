//! `mowgli explore`: compare two models on a corpus, on the implementations, or on
//! generated programs (`--search`).

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use mowgli_check::analyses::verdict::{Decided, Verdict};
use mowgli_libs::orders;

use super::common::{conclude, input_error, print_shard, run_inputs, SuiteArgs};
use super::progress::Progress;

/// The arguments of `mowgli explore`.
#[derive(clap::Args)]
pub struct Args {
    /// The base model: a library of the litmus format (e.g. `rdmatso`) or a
    /// stamp-order file.
    #[arg(long, value_name = "MODEL")]
    pub base: String,
    /// The variant: a library (e.g. `rdmatso_nopcie`; the tests of the base library
    /// are run with it instead) or a stamp-order file.
    #[arg(long, value_name = "MODEL")]
    pub variant: String,
    /// Litmus files or directories.
    #[arg(required_unless_present_any = ["impls", "search"])]
    pub paths: Vec<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    /// Also re-run the obligations and generated-client refinement checks of the
    /// built-in implementations under both stamp orders, and list which stop
    /// holding under the variant (bounds: `mowgli cells --help`, docs/sensitivity.md).
    #[arg(long)]
    pub impls: bool,
    /// Where the implementations are (`isv.impl`, `ibal.impl`, … `iw.impl`).
    #[arg(long, value_name = "DIR", default_value = "specs/impls")]
    pub impls_dir: PathBuf,
    #[command(flatten)]
    pub search: Box<SearchArgs>,
}

/// `mowgli explore --search`: generated distinguishing programs.
#[derive(clap::Args)]
pub struct SearchArgs {
    /// Instead of a corpus, search generated programs (smallest first) for ones the
    /// two models distinguish; stops at the first size class that has any.
    #[arg(long, help_heading = "Distinguishing-test search")]
    pub search: bool,
    /// The library programs are generated over, for stamp-order models (a name, or
    /// a library file, which is then read as `--lib FILE` would). `--lib` is the
    /// older spelling; as `mowgli generate --libs`, but one library.
    #[arg(
        long = "libs",
        visible_alias = "lib",
        value_name = "LIB",
        default_value = "rdmatso",
        help_heading = "Distinguishing-test search"
    )]
    pub lib: String,
    #[command(flatten)]
    pub bounds: SuiteArgs,
    /// Stop after N distinguishing programs.
    #[arg(long, value_name = "N", help_heading = "Distinguishing-test search")]
    pub max: Option<usize>,
    /// Write each distinguishing program as `DIR/NAME-SIDE.litmus`, one file per
    /// model with that model's outcomes as expectations.
    #[arg(long, value_name = "DIR", help_heading = "Distinguishing-test search")]
    pub out: Option<PathBuf>,
    /// Worker threads (default: the available parallelism).
    #[arg(long, value_name = "J", help_heading = "Distinguishing-test search", value_parser = super::common::jobs)]
    pub jobs: Option<usize>,
    /// Search only the programs whose index (smallest first) is K-1 modulo N (1 ≤ K
    /// ≤ N); `mowgli merge` combines the shards' `--json` reports.
    #[arg(long, value_name = "K/N", visible_alias = "shard", value_parser = super::common::partition, help_heading = "Distinguishing-test search")]
    pub partition: Option<String>,
}

pub fn run(a: Args, cat: &Catalogue) -> ExitCode {
    let Args { base, variant, paths, json, impls, impls_dir, search } = a;
    if search.search {
        explore_search(&base, &variant, &paths, json, &search, cat)
    } else if impls {
        explore_impls(&base, &variant, &paths, json, &impls_dir, cat)
    } else {
        explore(&base, &variant, &paths, json, cat)
    }
}

/// One test whose outcomes differ between two models: `what`, then per side (model,
/// number of outcomes, the outcomes only that side allows).
fn print_difference<T: std::fmt::Display>(what: &str, base: (&str, usize, &[T]), variant: (&str, usize, &[T])) {
    mowgli_check::outln!("{what}: {} outcomes under {}, {} under {}", base.1, base.0, variant.1, variant.0);
    for (model, _, only) in [base, variant] {
        for o in only {
            mowgli_check::outln!("  only {model}: {o}");
        }
    }
}

fn explore(base: &str, variant: &str, paths: &[PathBuf], json: bool, cat: &Catalogue) -> ExitCode {
    use mowgli_check::analyses::explore;
    let default = orders::default_order();
    let cat = &mut cat.clone();
    let (b, v) = match models(base, variant, &default, cat, json) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let progress = Progress::spinner("explore", "running the corpus under both models");
    let cmp = explore::compare(paths, &b, &v, &default, cat);
    progress.finish();
    let cmp = match cmp {
        Ok(c) => c,
        Err(e) => return input_error(json, e),
    };
    // the question is whether the two models agree on the corpus: a test they tell
    // apart is the counterexample
    let verdict = Verdict::of_errors(&cmp.errors, !cmp.differences.is_empty(), true);
    let decided = Decided::new(
        verdict,
        match verdict {
            Verdict::Error => format!("{} tests unreadable or malformed", cmp.errors.len()),
            Verdict::Counterexample => {
                format!("{} of {} tests have different outcomes under the two models", cmp.differences.len(), cmp.tests)
            }
            _ => format!("the two models give the same outcomes on all {} tests", cmp.tests),
        },
    );
    // the diagnostics on stderr, as every command writes them (stdout: the report)
    for e in &cmp.errors {
        eprintln!("{e}");
    }
    if json {
        return conclude(&decided, Some(serde_json::to_value(&cmp).unwrap_or_default()));
    } else {
        for d in &cmp.differences {
            print_difference(
                &format!("{} ({})", d.name, d.file),
                (&cmp.base, d.base_outcomes, &d.only_base),
                (&cmp.variant, d.variant_outcomes, &d.only_variant),
            );
        }
        mowgli_check::outln!(
            "summary: {} vs {}: {} tests, {} differ, {} the same{}, {} errors; {:.1} ms",
            cmp.base,
            cmp.variant,
            cmp.tests,
            cmp.differences.len(),
            cmp.same,
            if cmp.skipped > 0 {
                format!(" ({} skipped: they do not use `{}`)", cmp.skipped, cmp.base)
            } else {
                String::new()
            },
            cmp.errors.len(),
            cmp.millis
        );
    }
    conclude(&decided, None)
}

/// The two models of `--base` and `--variant`, both libraries or both stamp-order
/// files; else the diagnostic at `--variant`'s word of the command line.
fn models(
    base: &str,
    variant: &str,
    default: &mowgli_core::StampOrder,
    cat: &mut Catalogue,
    json: bool,
) -> Result<(mowgli_check::analyses::explore::Model, mowgli_check::analyses::explore::Model), ExitCode> {
    use mowgli_check::analyses::explore::Model;
    let (b, v) = match Model::pair(base, variant, default, cat) {
        (Ok(b), Ok(v)) => (b, v),
        (Err(e), _) | (_, Err(e)) => return Err(input_error(json, e)),
    };
    if matches!(b, Model::Library(_)) != matches!(v, Model::Library(_)) {
        let d = mowgli_diag::Diagnostic::on_option(
            "--variant",
            variant,
            "--base and --variant must both be libraries or both stamp-order files",
        );
        let kind = if matches!(b, Model::Library(_)) {
            "a library, like `--base`"
        } else {
            "a stamp-order file, like `--base`"
        };
        return Err(input_error(json, d.with_help(format!("give --variant {kind}"))));
    }
    Ok((b, v))
}

/// `mowgli explore --base A --variant B --impls [PATHS]`: the corpus comparison (when
/// paths are given) and the implementation checks under both stamp orders.
fn explore_impls(
    base: &str,
    variant: &str,
    paths: &[PathBuf],
    json: bool,
    dir: &std::path::Path,
    cat: &Catalogue,
) -> ExitCode {
    use mowgli_check::analyses::explore::{self, Model};
    use mowgli_check::analyses::sensitivity;
    let default = orders::default_order();
    let cat = &mut cat.clone();
    let (b, v) = match models(base, variant, &default, cat, json) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let (Model::Order { order: bo, .. }, Model::Order { order: vo, .. }) = (&b, &v) else {
        let d = mowgli_diag::Diagnostic::on_option(
            "--base",
            base,
            "`--impls` needs --base and --variant to be stamp-order files",
        );
        return input_error(json, d.with_help("give two `.to` files, e.g. `--base specs/stamp-orders/loco-fig10.to`"));
    };
    if !dir.is_dir() {
        return input_error(
            json,
            format!("{}:0:0: expected a directory of implementation files (`--impls-dir`)", dir.display()),
        );
    }
    let progress = Progress::spinner("explore", "running the corpus under both models");
    let cmp = if paths.is_empty() {
        None
    } else {
        match explore::compare(paths, &b, &v, &default, cat) {
            Ok(c) => Some(c),
            Err(e) => return input_error(json, e),
        }
    };
    progress.set_message("the implementation checks under both stamp orders");
    let start = Instant::now();
    let suite = sensitivity::default_suite(dir);
    let checks = sensitivity::compare_checks(&suite, bo, vo, 4, cat);
    progress.finish();
    let millis = start.elapsed().as_secs_f64() * 1000.0;
    let errors: Vec<String> =
        checks.iter().flat_map(|c| [&c.base.error, &c.variant.error]).flatten().cloned().collect();
    // the models are told apart by a corpus test whose outcomes differ or by an
    // implementation check that holds under one and not the other
    let corpus_errors = cmp.as_ref().map_or(0, |c| c.errors.len());
    let differ = cmp.as_ref().map_or(0, |c| c.differences.len());
    let told_apart = checks.iter().filter(|c| c.broken() || c.repaired()).count();
    let corpus_limits = cmp.as_ref().map_or(0, |c| c.errors.iter().filter(|e| e.limit).count());
    let verdict =
        Verdict::of(!errors.is_empty() || corpus_errors > corpus_limits, differ + told_apart > 0, corpus_limits == 0);
    let decided = Decided::new(
        verdict,
        match verdict {
            Verdict::Error => {
                format!("{} checks could not run, {corpus_errors} tests unreadable or malformed", errors.len())
            }
            Verdict::Counterexample => format!(
                "the models are told apart: {differ} corpus tests differ, {told_apart} implementation checks change"
            ),
            _ => format!("the two models agree on the corpus and on the {} implementation checks", checks.len()),
        },
    );
    if json {
        let doc = serde_json::json!({
            "base": b.label(),
            "variant": v.label(),
            "corpus": cmp,
            "implementations": checks,
            "broken": checks.iter().filter(|c| c.broken()).map(|c| &c.check).collect::<Vec<_>>(),
            "millis": millis,
        });
        return conclude(&decided, Some(doc));
    } else {
        if let Some(cmp) = &cmp {
            for d in &cmp.differences {
                mowgli_check::outln!(
                    "{} ({}): {} outcomes under {}, {} under {}",
                    d.name,
                    d.file,
                    d.base_outcomes,
                    cmp.base,
                    d.variant_outcomes,
                    cmp.variant
                );
                for o in &d.only_base {
                    mowgli_check::outln!("  only {}: {o}", cmp.base);
                }
                for o in &d.only_variant {
                    mowgli_check::outln!("  only {}: {o}", cmp.variant);
                }
            }
            mowgli_check::outln!(
                "corpus: {} tests, {} differ, {} the same, {} errors; {:.1} ms",
                cmp.tests,
                cmp.differences.len(),
                cmp.same,
                cmp.errors.len(),
                cmp.millis
            );
        }
        let status = |r: &sensitivity::CheckResult| match (&r.error, r.holds) {
            (Some(_), _) => "error".to_string(),
            (None, true) => format!("holds ({})", r.checked),
            (None, false) => "REFUTED".to_string(),
        };
        mowgli_check::outln!(
            "{:32} {:>16} {:>16} {:>9} {:>9}",
            "implementation check",
            "base",
            "variant",
            "base ms",
            "var. ms"
        );
        for c in &checks {
            mowgli_check::outln!(
                "{:32} {:>16} {:>16} {:>9.1} {:>9.1}",
                c.check,
                status(&c.base),
                status(&c.variant),
                c.base.millis,
                c.variant.millis
            );
        }
        for c in checks.iter().filter(|c| c.broken()) {
            mowgli_check::outln!("\nstops holding under {}: {}", v.label(), c.check);
            mowgli_check::outln!("  {}", c.variant.failure.as_deref().unwrap_or(""));
            for l in c.variant.witness.as_deref().unwrap_or("").lines().filter(|l| !l.starts_with('"')) {
                mowgli_check::outln!("    {l}");
            }
        }
        for c in checks.iter().filter(|c| c.repaired()) {
            mowgli_check::outln!("\nrefuted under {} but holds under {}: {}", b.label(), v.label(), c.check);
        }
        for e in &errors {
            mowgli_check::outln!("error: {e}");
        }
        mowgli_check::outln!(
            "summary: {} vs {}: {} implementation checks, {} stop holding under the variant, {} errors; {:.1} ms",
            b.label(),
            v.label(),
            checks.len(),
            checks.iter().filter(|c| c.broken()).count(),
            errors.len(),
            millis
        );
    }
    conclude(&decided, None)
}

fn explore_search(
    base: &str,
    variant: &str,
    paths: &[PathBuf],
    json: bool,
    args: &SearchArgs,
    cat: &Catalogue,
) -> ExitCode {
    use mowgli_check::analyses::explore::{self, Model, SearchOptions};
    use mowgli_check::analyses::refine::gen::Partition;
    if !paths.is_empty() {
        return input_error(json, "--search generates its programs: give no litmus paths");
    }
    let default = orders::default_order();
    let cat = &mut cat.clone();
    let (b, v) = match models(base, variant, &default, cat, json) {
        Ok(p) => p,
        Err(code) => return code,
    };
    // a library file where a name is expected: read as `--lib FILE` would be
    let lib_file = Some(std::path::Path::new(&args.lib)).filter(|p| p.is_file());
    let lib_name = match lib_file.map(|f| super::common::add_lib(f, cat)).transpose() {
        Ok(name) => name.unwrap_or_else(|| args.lib.clone()),
        Err(e) => return input_error(json, e),
    };
    let lib = match &b {
        Model::Library(l) => l.clone(),
        Model::Order { .. } => lib_name.clone(),
    };
    let bounds = args.bounds.bounds(1).gen_bounds(&lib, cat);
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let partition = match args.partition.as_deref().map(Partition::parse).transpose() {
        Ok(p) => p.unwrap_or(Partition::ALL),
        Err(e) => return input_error(json, format!("--partition: {e}")),
    };
    let opts = SearchOptions { library: lib_name.clone(), bounds, max: args.max, jobs, partition };
    let progress = Progress::spinner("explore", "searching");
    let on_progress = |size: usize, n: usize| {
        progress.set_message(format!("searching size {size}: {n} programs"));
        if !json {
            progress.note(&format!("size {size}: {n} programs"));
        }
    };
    let rep = explore::search(&b, &v, &default, &opts, &on_progress, cat);
    progress.finish();
    let rep = match rep {
        Ok(r) => r,
        Err(e) => return input_error(json, e),
    };
    let mut write_error = None;
    if let Some(dir) = &args.out {
        match explore::write_found(dir, &rep, matches!(b, Model::Library(_))) {
            Ok(files) if !json => {
                for f in files {
                    eprintln!("wrote {}", f.display());
                }
            }
            Ok(_) => {}
            Err(e) => write_error = Some(e),
        }
    }
    if let Some(e) = &write_error {
        eprintln!("{e}");
    }
    // the options that define the run: every shard of it has the same (`mowgli merge`)
    let run = serde_json::json!({
        "base": base, "variant": variant, "libs": args.lib, "bounds": args.bounds.bounds(1), "max": args.max,
    });
    // a model given as a file is an input; a library's name is an option
    let (bp, vp) = (std::path::Path::new(base), std::path::Path::new(variant));
    let inputs = match run_inputs(&[
        ("base", Some(bp).filter(|p| p.is_file())),
        ("variant", Some(vp).filter(|p| p.is_file())),
        ("libs", lib_file),
    ]) {
        Ok(i) => i,
        Err(e) => return input_error(json, e),
    };
    let doc = mowgli_check::analyses::merge::stamp_with(
        serde_json::to_value(&rep).unwrap_or_default(),
        "explore-search",
        partition,
        run,
        &inputs,
    );
    let decided = mowgli_check::analyses::merge::decide_explore_search(&doc, write_error.is_some());
    if json {
        return conclude(&decided, Some(doc));
    } else {
        for d in &rep.found {
            print_difference(
                &format!("{} ({} instructions)", d.name, d.size),
                (&rep.base, d.base_outcomes, &d.only_base),
                (&rep.variant, d.variant_outcomes, &d.only_variant),
            );
        }
        if let Some(d) = rep.found.first() {
            mowgli_check::outln!("smallest:\n{}", d.base_text);
        }
        for e in &rep.errors {
            mowgli_check::outln!("error: {e}");
        }
        print_shard(partition, "programs searched");
        let searched: Vec<String> = rep.classes.iter().map(|c| format!("{}: {}", c.size, c.checked)).collect();
        mowgli_check::outln!(
            "summary: {} vs {} over {}: {} programs run under both (per size {}), {} distinguishing{}; {:.1} ms",
            rep.base,
            rep.variant,
            rep.library,
            rep.checked,
            searched.join(", "),
            rep.found.len(),
            if rep.exhausted { " (every size up to the bounds searched)" } else { "" },
            rep.millis
        );
    }
    conclude(&decided, None)
}
