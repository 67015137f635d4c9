//! `mowgli pivot`: coreRMA pivot generation (coreRMA paper §6.1, Table 6), with
//! each row's counts next to the paper's.

use std::path::PathBuf;
use std::process::ExitCode;

use mowgli_check::analyses::pivot::{self, PivotOptions};
use mowgli_check::analyses::verdict::{Decided, Verdict};
use mowgli_libs::corerma::model::Rule;

use super::common::{conclude, input_error};

/// The arguments of `mowgli pivot`.
#[derive(clap::Args)]
pub struct Args {
    /// Only these rules (Fig. 4 names: R1, R2, F1, F2, F3, IR, GA, PG, CAS-F, CAS-T,
    /// LO, WS); every rule of Table 6 by default.
    #[arg(long = "rule", value_name = "RULE")]
    pub rules: Vec<String>,
    /// Only the rows with this many processes (1 or 2).
    #[arg(long, value_name = "P")]
    pub procs: Option<usize>,
    /// Cap every row's size bound (number of actions, initial writes included) at N
    /// (default: each row's Table 6 size, 7 to 12).
    #[arg(long, value_name = "N")]
    pub size: Option<usize>,
    /// Locations in a program (at most). `--max-locs` is the older spelling.
    #[arg(long = "locs", visible_alias = "max-locs", value_name = "L", default_value_t = 3)]
    pub max_locs: usize,
    /// Worker threads (default: the available parallelism).
    #[arg(long, value_name = "J", value_parser = super::common::jobs)]
    pub jobs: Option<usize>,
    /// Write every test as `DIR/NAME.litmus` (library `corerma`: its stock outputs as
    /// `expect allowed`, the outcomes that need the rule as `expect forbidden`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Enumerate and search every program at every size for every rule, instead of
    /// only the programs with the shape a row's rule needs (same counts, slower).
    #[arg(long)]
    pub plain: bool,
    /// Also programs with non-atomic accesses (Table 1's `*` = n; outcomes may be
    /// `top`): many more programs, each searched by brute force; use a small --size.
    #[arg(long, conflicts_with = "plain")]
    pub non_atomic: bool,
    /// The one-process rows also count programs with a second process that holds
    /// memory only (locations, no statements), which process 0 accesses remotely.
    #[arg(long)]
    pub memory_process: bool,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: Args) -> ExitCode {
    let mut rows = pivot::table6();
    if !a.rules.is_empty() {
        let mut wanted = Vec::new();
        for r in &a.rules {
            match Rule::parse(r) {
                Some(rule) if Rule::PIVOTS.contains(&rule) => wanted.push(rule),
                _ => {
                    let names: Vec<&str> = Rule::PIVOTS.iter().map(|r| r.name()).collect();
                    let d = mowgli_diag::Diagnostic::whole_file(
                        "--rule",
                        format!("`{r}` is not a pivot rule of coreRMA's Fig. 4 (expected one of {})", names.join(", ")),
                    )
                    .suggesting(r, names.iter().copied());
                    return input_error(a.json, d.to_string());
                }
            }
        }
        rows.retain(|row| Rule::parse(&row.rule).is_some_and(|r| wanted.contains(&r)));
    }
    if let Some(p) = a.procs {
        if !(1..=2).contains(&p) {
            return input_error(a.json, format!("--procs {p}: Table 6 has rows for 1 and 2 processes"));
        }
        rows.retain(|row| row.procs == p);
    }
    let jobs = a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let opts = PivotOptions {
        rows,
        max_size: a.size,
        max_locs: a.max_locs,
        jobs,
        keep: a.out.is_some(),
        plain: a.plain,
        non_atomic: a.non_atomic,
        memory: a.memory_process,
    };
    let progress = super::progress::Progress::spinner("pivot", "generating the pivot tests of Table 6");
    let rep = pivot::generate(&opts);
    progress.finish();
    if let Some(dir) = &a.out {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return input_error(a.json, format!("{}: {e}", dir.display()));
        }
        for t in &rep.generated {
            let name = t.text.lines().next().and_then(|l| l.strip_prefix("test ")).unwrap_or("pivot").to_string();
            if let Err(e) = std::fs::write(dir.join(format!("{name}.litmus")), &t.text) {
                return input_error(a.json, format!("{}: {e}", dir.display()));
            }
        }
    }
    let d = Decided::new(
        Verdict::Verified,
        format!(
            "{} tests over {} programs ({} candidate executions) in {:.1} s ({:.1} s of CPU)",
            rep.tests,
            rep.programs,
            rep.visited,
            rep.millis / 1e3,
            rep.cpu_millis / 1e3
        ),
    );
    if a.json {
        return conclude(&d, Some(serde_json::to_value(&rep).unwrap_or_default()));
    }
    // ms/test: CPU time per test where the platform gives it (load-independent), else wall
    mowgli_check::outln!(
        "rule    proc size | tests  outputs  ms/test | paper: size tests outputs ms/test | time ratio"
    );
    for r in &rep.rows {
        let ms = if rep.cpu_millis > 0.0 { r.cpu_ms_per_test } else { r.ms_per_test };
        let ratio = if ms > 0.0 { r.row.paper_ms_per_test / ms } else { 0.0 };
        mowgli_check::outln!(
            "{:<7} {:>4} {:>4} | {:>5} {:>8} {:>8.3} | {:>11} {:>5} {:>7} {:>7.0} | {:>8.1}x",
            r.row.rule,
            r.row.procs,
            r.size,
            r.tests,
            r.outputs,
            ms,
            r.row.size,
            r.row.paper_tests,
            r.row.paper_outputs,
            r.row.paper_ms_per_test,
            ratio
        );
    }
    if let Some(dir) = &a.out {
        mowgli_check::outln!("wrote {} tests to {}", rep.generated.len(), dir.display());
    }
    conclude(&d, None)
}
