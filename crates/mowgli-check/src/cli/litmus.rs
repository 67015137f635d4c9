//! `mowgli litmus`: run litmus tests, print every reachable outcome and check each expectation.

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use mowgli_check::analyses::litmus::show::{self, Drawing, Show};
use mowgli_check::analyses::verdict::{Decided, Verdict};
use mowgli_check::analyses::{junit, litmus};

use super::common::{conclude, input_error, load_order};

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
    /// Write the graphs `--show` selects as Graphviz files: `DIR/TEST-lLINE.dot`
    /// per expectation, `DIR/TEST-oK.dot` per outcome (`--show all`).
    #[arg(long, value_name = "DIR")]
    pub dot: Option<PathBuf>,
    /// Write the run as one HTML page, `DIR/index.html`: the verdict, every test
    /// with its status and report, and the graphs `--show` selects as inline SVG
    /// (no Graphviz needed).
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// Which executions `--dot` and `--html` draw: `failing` (a counterexample of
    /// each failing `forbidden` expectation, a forbidding cycle of each failing
    /// `allowed` one), `allowed` (also an execution of every `allowed`
    /// expectation that holds), `all` (also one execution per reachable outcome,
    /// and the forbidding cycle of every `forbidden` expectation that holds).
    #[arg(long, value_enum, default_value = "failing", value_name = "WHICH")]
    pub show: ShowArg,
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
    /// Also write the results as JUnit XML to FILE (one test case per test file).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Most work the witness search of one test may do, in units of about a
    /// nanosecond (the default is a few seconds); a test whose search needs more is
    /// inconclusive (exit 3).
    #[arg(long, value_name = "N", default_value_t = mowgli_check::lang::lower::MAX_WORK)]
    pub max_work: u64,
    /// Iterations per loop that is no spin loop. A test where a loop reaches it
    /// lost the runs that stay in the loop longer: what an outcome found decides
    /// holds, the rest is undecided (inconclusive, exit 3).
    #[arg(long, value_name = "N", default_value_t = mowgli_check::lang::lower::LOOP_BOUND,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1000))]
    pub loop_bound: usize,
}

/// `--show`: which executions are drawn.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ShowArg {
    Failing,
    Allowed,
    All,
}

impl ShowArg {
    fn show(self) -> Show {
        match self {
            ShowArg::Failing => Show::Failing,
            ShowArg::Allowed => Show::Allowed,
            ShowArg::All => Show::All,
        }
    }
}

/// Output of `mowgli litmus`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LitmusFormat {
    Text,
    Herd,
}

pub fn run(a: Args, cat: &Catalogue) -> ExitCode {
    let Args {
        paths,
        json,
        stats,
        stamp_order,
        dot,
        html,
        show,
        engine,
        format,
        max_values,
        max_work,
        junit,
        loop_bound,
    } = a;
    let draw = dot.is_some() || html.is_some();
    let quiet = super::progress::quiet();
    let limits = mowgli_check::lang::lower::DomainLimits { max_values, max_work, loop_bound, ..Default::default() };
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
    let mut cases = Vec::new();
    let mut sections = Vec::new();
    let progress = super::progress::Progress::new("litmus", "tests", Some(files.len() as u64));
    for f in &files {
        progress.set_message(f.display().to_string());
        let started = Instant::now();
        let (result, drawings) = if draw {
            match show::check_file_drawn(f, &order, cat, engine, limits, show.show()) {
                Ok((r, d)) => (Ok(r), d),
                Err(e) => (Err(e), vec![]),
            }
        } else {
            (litmus::check_file_engine(f, &order, cat, engine, limits), vec![])
        };
        progress.inc(1);
        if junit.is_some() {
            cases.push(junit_case(f, &result, started.elapsed().as_secs_f64()));
        }
        match result {
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
                    errors.extend(write_dots(dir, &drawings));
                }
                if html.is_some() {
                    sections.push(show::section(&r, &drawings));
                }
                reports.push(r);
            }
            Err(e) => {
                eprintln!("{e}");
                if html.is_some() {
                    sections.push(error_section(f, &e));
                }
                errors.push(e);
            }
        }
    }
    progress.finish();
    let total = start.elapsed();
    let sum = litmus::Summary::of(&reports, errors.len());
    let mut decided = sum.decide();
    if let Some(file) = &junit {
        let suite = junit::Suite { name: "litmus".into(), cases };
        if let Err(e) = std::fs::write(file, junit::render("mowgli litmus", &[suite])) {
            eprintln!("{}: cannot write: {e}", file.display());
            decided = Decided::new(Verdict::Error, format!("the JUnit report {} could not be written", file.display()));
        }
    }
    let cand: u64 = reports.iter().map(|r| r.stats.candidates).sum();
    let naive: f64 = reports.iter().map(|r| r.stats.naive).sum();
    let summary = format!(
        "summary: {} tests, {} expectations: {} ok, {} known disagreements (documented), {} FAIL, {} malformed{}{}{}",
        reports.len(),
        sum.expectations,
        sum.ok(),
        sum.known,
        sum.failed,
        errors.len(),
        if sum.empty + sum.empty_bounded > 0 {
            format!(
                "; {} tests EMPTY (no outcome), {} expectations unchecked",
                sum.empty + sum.empty_bounded,
                sum.unchecked
            )
        } else {
            String::new()
        },
        if sum.undecided > 0 { format!(", {} undecided", sum.undecided) } else { String::new() },
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
    if let Some(dir) = &html {
        let page = super::common::html_page(&decided, summary.clone(), sections);
        if let Err(d) = super::common::write_html(dir, &page) {
            eprintln!("{d}");
            decided =
                Decided::new(Verdict::Error, format!("the HTML report in {} could not be written", dir.display()));
        }
    }
    if json {
        let doc = serde_json::json!({
            "tests": reports,
            "errors": errors,
            "summary": {
                "tests": reports.len(),
                "expectations": sum.expectations,
                "ok": sum.ok(),
                "known_disagreements": sum.known,
                "failed": sum.failed,
                "no_outcome": sum.empty + sum.empty_bounded,
                "unchecked": sum.unchecked,
                "undecided": sum.undecided,
                "inconclusive_tests": sum.cut,
                "malformed": errors.len(),
                "millis": total.as_secs_f64() * 1000.0,
            }
        });
        conclude(&decided, Some(doc))
    } else {
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

/// The JUnit case of one test file: its verdict as `mowgli litmus` would give it
/// alone; the class is the file's folder (`specs/litmus/rdma` → `specs.litmus.rdma`).
fn junit_case(
    file: &std::path::Path,
    result: &Result<litmus::TestReport, mowgli_check::lang::InputError>,
    seconds: f64,
) -> junit::Case {
    let folder = file.parent().map(|p| p.display().to_string()).unwrap_or_default();
    let classname = folder.trim_start_matches("./").replace(['/', '\\'], ".");
    let classname = if classname.is_empty() { "litmus".to_string() } else { classname };
    let (name, decided, details) = match result {
        Ok(r) => {
            let d = litmus::Summary::of(std::slice::from_ref(r), 0).decide();
            (r.name.clone(), d, litmus::details(r).unwrap_or_default())
        }
        Err(e) => (file.display().to_string(), Decided::new(Verdict::Error, e.headline()), e.render()),
    };
    junit::Case::of_verdict(&classname, &name, seconds, Verdict::Verified, decided.verdict, &decided.why, &details)
}

/// Writes each drawing as `DIR/STEM.dot`; the files that could not be written.
fn write_dots(dir: &std::path::Path, drawings: &[Drawing]) -> Vec<mowgli_diag::Diagnostic> {
    let mut errors = Vec::new();
    for d in drawings {
        let path = dir.join(format!("{}.dot", d.stem));
        let text = mowgli_draw::dot::dot(&d.graph, "execution");
        match std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, text)) {
            Ok(()) => eprintln!("wrote {}", path.display()),
            Err(err) => {
                let d = mowgli_diag::Diagnostic::output(&path, format!("cannot write: {err}"));
                eprintln!("{d}");
                errors.push(d);
            }
        }
    }
    errors
}

/// A file that could not be checked, as a section of the HTML report.
fn error_section(file: &std::path::Path, e: &mowgli_diag::Diagnostic) -> mowgli_draw::html::Section {
    mowgli_draw::html::Section {
        name: file.display().to_string(),
        status: "error".into(),
        tone: mowgli_draw::html::Tone::Fail,
        text: e.render(),
        graphs: vec![],
    }
}
