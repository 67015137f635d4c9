//! `mowgli litmus`: run litmus tests, print every reachable outcome and check each expectation.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use mowgli_check::analyses::litmus;
use mowgli_check::analyses::verdict::{Decided, Verdict};

use super::common::{conclude, input_error, load_order, BOUNDED};

/// The arguments of `mowgli litmus`.
#[derive(clap::Args)]
pub struct Args {
    /// Litmus files or directories (searched recursively for *.litmus).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Machine-readable output (one JSON document).
    #[arg(long)]
    pub json: bool,
    /// Report candidates explored, consistent executions and time per test.
    #[arg(long)]
    pub stats: bool,
    /// Run under another stamp order (a file with table `to`, optionally `ippo`/`oppo`).
    #[arg(long, value_name = "FILE")]
    pub stamp_order: Option<PathBuf>,
    /// Print only failures and the summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// Write the counterexample execution of every failing `forbidden`
    /// expectation as a Graphviz file `DIR/TEST-lLINE.dot`.
    #[arg(long, value_name = "DIR")]
    pub dot: Option<PathBuf>,
    /// The engine: `explicit` (declarative, backtracking), `z3` (declarative,
    /// SMT; libraries rdmawait, msw, sv, bal and `--lib` files),
    /// `operational` /
    /// `operational-simplified` (RDMA^TSO's machines, RDMA paper §3), or `both`
    /// (declarative and operational; a difference fails the test).
    #[arg(long, value_enum, default_value = "explicit")]
    pub engine: mowgli_check::analyses::litmus::operational::LitmusEngine,
    /// Output format: `text`, or `herd` (herd7's log, for mcompare7 and msum7;
    /// herd7 x86 tests only; the summary goes to stderr).
    #[arg(long, value_enum, default_value = "text", conflicts_with = "json")]
    pub format: LitmusFormat,
    /// Most values one location's value domain may hold when a test or a library
    /// computes values (sums, `a + 1`); a test whose domain grows past it is
    /// inconclusive (exit 3).
    #[arg(long, value_name = "N", default_value_t = mowgli_check::lang::lower::MAX_VALUES)]
    pub max_values: usize,
    /// Most work the witness search of one test may do, in units of about a
    /// nanosecond (the default is a few seconds); a test whose search needs more is
    /// inconclusive (exit 3).
    #[arg(long, value_name = "N", default_value_t = mowgli_check::lang::lower::MAX_WORK)]
    pub max_work: u64,
}

/// Output of `mowgli litmus`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LitmusFormat {
    Text,
    Herd,
}

pub fn run(a: Args) -> ExitCode {
    let Args { paths, json, stats, stamp_order, quiet, dot, engine, format, max_values, max_work } = a;
    let limits = mowgli_check::lang::lower::DomainLimits { max_values, max_work, ..Default::default() };
    let order = match load_order(&stamp_order) {
        Ok(o) => o,
        Err(e) => return input_error(json, e),
    };
    let files = match litmus::collect(&paths) {
        Ok(f) => f,
        Err(e) => return input_error(json, e),
    };
    let start = Instant::now();
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    for f in &files {
        match litmus::check_file_engine(f, &order, engine, limits) {
            Ok(r) => {
                if format == LitmusFormat::Herd {
                    match litmus::herdlog::log(&r) {
                        Ok(l) => mowgli_check::out!("{l}"),
                        Err(e) => {
                            eprintln!("{e}");
                            errors.push(e);
                            continue;
                        }
                    }
                } else if !json && (!quiet || !r.all_ok()) {
                    mowgli_check::out!("{}", litmus::render(&r, stats));
                }
                if let Some(dir) = &dot {
                    for e in r.expectations.iter().filter(|e| !e.passed()) {
                        let Some(d) = &e.dot else { continue };
                        let path = dir.join(format!("{}-l{}.dot", r.name, e.line));
                        let written = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, d));
                        match written {
                            Ok(()) => eprintln!("wrote {}", path.display()),
                            Err(err) => {
                                let d = mowgli_diag::Diagnostic::output(&path, format!("cannot write: {err}"));
                                eprintln!("{d}");
                                errors.push(d);
                            }
                        }
                    }
                }
                reports.push(r);
            }
            Err(e) => {
                eprintln!("{e}");
                errors.push(e);
            }
        }
    }
    let total = start.elapsed();
    let nexp: usize = reports.iter().map(|r| r.expectations.len()).sum();
    // the expectations of a test with no outcome are unchecked: neither ok nor FAIL
    let count = |p: &dyn Fn(&litmus::ExpectReport) -> bool| -> usize {
        reports.iter().map(|r| r.expectations.iter().filter(|e| !e.no_outcome && p(e)).count()).sum()
    };
    let nfail = count(&|e| !e.passed());
    let nknown = count(&|e| e.decided && !e.ok && e.known.is_some());
    let nunchecked = nexp - count(&|_| true);
    // the expectations a run cut by a limit could not decide
    let nundecided = count(&|e| !e.decided);
    let ncut = reports.iter().filter(|r| r.inconclusive.is_some()).count();
    let ndiff: usize = reports.iter().map(|r| r.engine_differences.len()).sum();
    let nempty = reports.iter().filter(|r| r.empty()).count();
    let nempty_bounded = reports.iter().filter(|r| r.empty_bounded()).count();
    let verdict = Verdict::of(!errors.is_empty(), nfail + ndiff + nempty > 0, nempty_bounded + ncut == 0);
    let mut failures = Vec::new();
    if nfail > 0 || nempty + ndiff == 0 {
        failures.push(format!("{nfail} of {nexp} expectations fail"));
    }
    if ndiff > 0 {
        failures.push(format!("{ndiff} outcomes differ between the engines"));
    }
    if nempty > 0 {
        failures.push(format!(
            "{nempty} tests reach no outcome (no consistent execution; {nunchecked} expectations unchecked)"
        ));
    }
    let mut undecided = Vec::new();
    if ncut > 0 {
        undecided.push(format!(
            "{ncut} tests cut by a limit, {nundecided} of {nexp} expectations undecided (see INCONCLUSIVE above)"
        ));
    }
    if nempty_bounded > 0 {
        undecided.push(format!(
            "{nempty_bounded} tests reach no outcome within the unrolling bound: whether they have one is undecided"
        ));
    }
    let decided = Decided::new(
        verdict,
        match verdict {
            Verdict::Error => format!("{} inputs unreadable, malformed or unwritable", errors.len()),
            Verdict::Counterexample => failures.join("; "),
            Verdict::Inconclusive => format!(
                "{}; {} of {nexp} expectations hold",
                undecided.join("; "),
                nexp - nfail - nknown - nunchecked - nundecided
            ),
            _ => format!(
                "{} of {nexp} expectations hold, {nknown} documented disagreements{}",
                nexp - nknown,
                if reports.iter().any(|r| r.bounded) { BOUNDED } else { "" }
            ),
        },
    );
    if json {
        let doc = serde_json::json!({
            "tests": reports,
            "errors": errors,
            "summary": {
                "tests": reports.len(),
                "expectations": nexp,
                "ok": nexp - nfail - nknown - nunchecked - nundecided,
                "known_disagreements": nknown,
                "failed": nfail,
                "no_outcome": nempty + nempty_bounded,
                "unchecked": nunchecked,
                "undecided": nundecided,
                "inconclusive_tests": ncut,
                "malformed": errors.len(),
                "millis": total.as_secs_f64() * 1000.0,
            }
        });
        conclude(&decided, Some(doc))
    } else {
        let cand: u64 = reports.iter().map(|r| r.stats.candidates).sum();
        let naive: f64 = reports.iter().map(|r| r.stats.naive).sum();
        let summary = format!(
            "summary: {} tests, {} expectations: {} ok, {} known disagreements (documented), {} FAIL, {} malformed{}{}{}",
            reports.len(),
            nexp,
            nexp - nfail - nknown - nunchecked - nundecided,
            nknown,
            nfail,
            errors.len(),
            if nempty + nempty_bounded > 0 {
                format!("; {} tests EMPTY (no outcome), {nunchecked} expectations unchecked", nempty + nempty_bounded)
            } else {
                String::new()
            },
            if nundecided > 0 { format!(", {nundecided} undecided") } else { String::new() },
            if stats {
                format!(
                    "; {} candidates explored vs {:.0} naive ({:.1}x fewer); {:.1} ms",
                    cand,
                    naive,
                    naive / (cand.max(1) as f64),
                    total.as_secs_f64() * 1000.0
                )
            } else {
                String::new()
            }
        );
        if format == LitmusFormat::Herd {
            // standard output holds the herd log alone (mcompare7 reads it)
            eprintln!("{summary}");
            eprintln!("{}", decided.line());
            decided.verdict.exit()
        } else {
            if let (true, Some(m)) = (stats, litmus::machine_summary(&reports)) {
                mowgli_check::outln!("{m}");
            }
            mowgli_check::outln!("{summary}");
            conclude(&decided, None)
        }
    }
}
