//! `mowgli generate`: bounded-exhaustive litmus generation.

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;
use std::process::ExitCode;

use super::common::{conclude, input_error, load_order, print_shard, run_inputs, SuiteArgs};
use super::progress::Progress;

/// The arguments of `mowgli generate`.
#[derive(clap::Args)]
pub struct Args {
    /// Libraries (comma-separated; one suite each): rdmatso, rdmatso_nopcie,
    /// rdmatso_f1, rdmasc, rdmawait, sv; with remote atomics rdmatso_rmw,
    /// rdmatso_rmw_nopcie, rdmatso_rmw_glob; or any library given with `--lib`.
    #[arg(long, value_name = "LIBS", value_delimiter = ',', default_value = "rdmatso")]
    pub libs: Vec<String>,
    #[command(flatten)]
    pub bounds: SuiteArgs,
    /// Write the tests as `DIR/NAME.litmus`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Stop after N tests (smallest first).
    #[arg(long, value_name = "N")]
    pub max_tests: Option<usize>,
    /// Worker threads (default: the available parallelism).
    #[arg(long, value_name = "J", value_parser = super::common::jobs)]
    pub jobs: Option<usize>,
    /// Compute outcomes under another stamp order.
    #[arg(long, value_name = "FILE")]
    pub stamp_order: Option<PathBuf>,
    /// Machine-readable report.
    #[arg(long)]
    pub json: bool,
    /// Generate only the programs (counted across the libraries) whose index is
    /// K-1 modulo N (1 ≤ K ≤ N); `mowgli merge` combines the `--json` reports
    /// of shards 1..N into the whole run's.
    #[arg(long, value_name = "K/N", visible_alias = "shard", value_parser = super::common::partition)]
    pub partition: Option<String>,
}

pub fn run(a: Args, cat: &Catalogue) -> ExitCode {
    let Args { libs, bounds, out, max_tests, jobs, stamp_order, json, partition } = a;
    generate(&libs, &bounds, &out, (max_tests, jobs, partition.as_deref()), &stamp_order, json, cat)
}

fn generate(
    libs: &[String],
    args: &SuiteArgs,
    out: &Option<PathBuf>,
    (max_tests, jobs, partition): (Option<usize>, Option<usize>, Option<&str>),
    stamp_order: &Option<PathBuf>,
    json: bool,
    cat: &Catalogue,
) -> ExitCode {
    use mowgli_check::analyses::generate::{self, SuiteOptions, SuiteProgress};
    use mowgli_check::analyses::refine::gen::Partition;
    let order = match load_order(stamp_order) {
        Ok(o) => o,
        Err(e) => return input_error(json, e),
    };
    let partition = match partition.map(Partition::parse).transpose() {
        Ok(p) => p.unwrap_or(Partition::ALL),
        Err(e) => return input_error(json, format!("--partition: {e}")),
    };
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let model = match stamp_order {
        Some(p) => format!("the stamp order of {}", p.display()),
        None => "the default stamp order".to_string(),
    };
    let bounds = match args.checked(2) {
        Ok(b) => b,
        Err(e) => return input_error(json, e),
    };
    let opts = SuiteOptions { libs: libs.to_vec(), bounds, max_tests, jobs, model, partition };
    let bar = Progress::new("generate", "tests", Some(0));
    let on_progress = |p: SuiteProgress| match p {
        SuiteProgress::Class { library, size, distinct, to_run } => {
            bar.inc_length(to_run as u64);
            bar.set_message(format!("{library}, size {size}: {distinct} programs"));
        }
        SuiteProgress::Done => bar.inc(1),
    };
    if let Some(dir) = out {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return input_error(json, mowgli_diag::Diagnostic::output(dir, format!("cannot create: {e}")));
        }
    }
    // files that could not be written: an output error, not a limit
    let unwritten = std::sync::atomic::AtomicUsize::new(0);
    let sink = |t: generate::SuiteTest| match out {
        Some(dir) => generate::write_test(dir, &t).inspect_err(|_| {
            unwritten.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }),
        None => Ok(()),
    };
    let rep = match generate::generate_suite_with(&opts, &order, cat, &on_progress, &sink) {
        Ok(x) => x,
        Err(e) => {
            bar.finish();
            return input_error(json, e);
        }
    };
    bar.finish();
    if let (Some(dir), false) = (out, json) {
        eprintln!("wrote {} tests to {}", rep.tests, dir.display());
    }
    // the options that define the run: every shard of it has the same (`mowgli merge`)
    let run = serde_json::json!({
        "libs": libs, "bounds": opts.bounds, "max_tests": max_tests,
        "stamp_order": stamp_order.as_ref().map(|p| p.display().to_string()),
    });
    let inputs = match run_inputs(&[("stamp_order", stamp_order.as_deref())]) {
        Ok(i) => i,
        Err(e) => return input_error(json, e),
    };
    let doc = mowgli_check::analyses::merge::stamp_with(
        serde_json::to_value(&rep).unwrap_or_default(),
        "generate",
        partition,
        run,
        &inputs,
    );
    // generation checks nothing, so it has no counterexample: the suite covers the
    // bound, or --max-tests or programs whose outcomes could not be computed (a
    // size limit, e.g. too many values) left part of it out
    let unwritten = unwritten.load(std::sync::atomic::Ordering::SeqCst);
    let decided = mowgli_check::analyses::merge::decide_generate(&doc, unwritten);
    if json {
        conclude(&decided, Some(doc))
    } else {
        mowgli_check::out!("{}", generate::render_report(&rep));
        print_shard(partition, "programs of the suite");
        conclude(&decided, None)
    }
}
