//! `mowgli check`: every entry of the project file, one line each, a summary, the
//! verdict; `--junit FILE` for CI.

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use mowgli_check::analyses::project::{self, EntryReport, Status};
use mowgli_check::analyses::verdict::Verdict;
use mowgli_check::lang::project::{Check, Entry, Project};

use super::common::{conclude, input_error};

/// The arguments of `mowgli check`.
#[derive(clap::Args)]
pub struct Args {
    /// Run only the entries whose id (`KIND/NAME`, e.g. `refine/isv`) contains
    /// PATTERN, or matches it whole when it has `*` wildcards. Repeatable.
    #[arg(long, value_name = "PATTERN")]
    pub only: Vec<String>,
    /// Run only the entries in group G (their `groups` key). Repeatable.
    #[arg(long, value_name = "G")]
    pub group: Vec<String>,
    /// List the entries (after `--only`/`--group`) without running them.
    #[arg(long)]
    pub list: bool,
    /// Also write the results as JUnit XML to FILE (one test case per entry).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Also write an HTML report, DIR/index.html: per entry its verdict, what
    /// failed, and the pictures of failing executions and refuted obligations.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// Machine-readable output (one JSON document).
    #[arg(long)]
    pub json: bool,
    /// Seconds per entry, for the entries without a `time-limit` of their own.
    #[arg(long, value_name = "S")]
    pub time_limit: Option<f64>,
    /// Worker threads of generated refinement runs (default: the available parallelism).
    #[arg(long, value_name = "J", value_parser = super::common::jobs)]
    pub jobs: Option<usize>,
}

pub fn run(a: Args, project: Option<Project>, cat: &Catalogue) -> ExitCode {
    let Some(project) = project else {
        return input_error(
            a.json,
            format!(
                "no {} in the current folder or any folder above it: write one (docs/user-guide.md, \
                 \"A project file\") or give `--project FILE`",
                mowgli_check::lang::project::FILE_NAME
            ),
        );
    };
    if let Some(t) = a.time_limit.filter(|t| !(t.is_finite() && *t > 0.0)) {
        return input_error(a.json, format!("--time-limit {t}: a number of seconds, more than 0"));
    }
    if let Err(d) = project.check_paths() {
        return input_error(a.json, d);
    }
    let entries = project::select(&project, &a.only, &a.group);
    if entries.is_empty() {
        return input_error(
            a.json,
            format!(
                "{}: no entry {} (of {}): nothing to check",
                project.file.display(),
                if a.only.is_empty() && a.group.is_empty() { "at all" } else { "matches --only/--group" },
                project.entries.len()
            ),
        );
    }
    if a.list {
        for e in &entries {
            mowgli_check::outln!("{}", describe(e));
        }
        return Verdict::Verified.exit();
    }
    let width = entries.iter().map(|e| e.id().chars().count()).max().unwrap_or(0);
    if !a.json {
        mowgli_check::outln!(
            "project {}: {} of {} entries",
            project.file.display(),
            entries.len(),
            project.entries.len()
        );
    }
    let opts = project::RunOptions { time_limit: a.time_limit, jobs: a.jobs, graphs: a.html.is_some() };
    let start = Instant::now();
    let mut reports = Vec::new();
    let progress = super::progress::Progress::new("check", "entries", Some(entries.len() as u64));
    for e in entries {
        progress.set_message(e.id());
        let r = project::run_entry(&project, e, &opts, cat);
        progress.inc(1);
        if !a.json {
            print_entry(&r, width);
        }
        reports.push(r);
    }
    progress.finish();
    let mut decided = project::decide(&reports);
    if let Some(file) = &a.junit {
        let xml = project::junit(&project, &reports);
        if let Err(e) = std::fs::write(file, xml) {
            eprintln!("{}", mowgli_diag::Diagnostic::output(file, format!("cannot write: {e}")));
            decided = mowgli_check::analyses::verdict::Decided::new(
                Verdict::Error,
                format!("the JUnit report {} could not be written", file.display()),
            );
        }
    }
    let count = |s: Status| reports.iter().filter(|r| r.status == s).count();
    let secs = start.elapsed().as_secs_f64();
    let summary = format!(
        "{} entries: {} ok, {} FAIL, {} inconclusive, {} errors; {secs:.1} s",
        reports.len(),
        count(Status::Ok),
        count(Status::Fail),
        count(Status::Inconclusive),
        count(Status::Error)
    );
    if let Some(dir) = &a.html {
        let sections = reports.iter().map(section).collect();
        if let Err(d) = super::common::write_html(dir, &super::common::html_page(&decided, summary.clone(), sections)) {
            eprintln!("{d}");
            decided = mowgli_check::analyses::verdict::Decided::new(
                Verdict::Error,
                format!("the HTML report in {} could not be written", dir.display()),
            );
        }
    }
    if a.json {
        let doc = serde_json::json!({
            "project": project.file.display().to_string(),
            "entries": reports,
            "summary": {
                "entries": reports.len(), "ok": count(Status::Ok), "failed": count(Status::Fail),
                "inconclusive": count(Status::Inconclusive), "errors": count(Status::Error),
                "millis": secs * 1000.0,
            },
        });
        return conclude(&decided, Some(doc));
    }
    mowgli_check::outln!("summary: {summary}");
    conclude(&decided, None)
}

/// An entry as a section of the HTML report: its status, verdict and reason,
/// what failed, and its pictures.
fn section(r: &EntryReport) -> mowgli_draw::html::Section {
    use mowgli_draw::html::Tone;
    let tone = match r.status {
        Status::Ok => Tone::Pass,
        Status::Fail | Status::Error => Tone::Fail,
        Status::Inconclusive => Tone::Other,
    };
    let mut text = format!("expect {}: {} ({})\n", r.expect, r.verdict.word(), r.why);
    for d in &r.details {
        text += &format!("{d}\n");
    }
    mowgli_draw::html::Section {
        name: r.id.clone(),
        status: r.status.word().to_string(),
        tone,
        text,
        graphs: r.graphs.clone(),
    }
}

/// One entry's line: status, id, verdict, time; under an entry that is not `ok`,
/// what it expected, why, and what failed.
fn print_entry(r: &EntryReport, width: usize) {
    mowgli_check::outln!(
        "{:<12} {:<width$}  {:<14} {:>8.2} s",
        r.status.word(),
        r.id,
        r.verdict.word(),
        r.millis / 1000.0
    );
    if r.status == Status::Ok {
        return;
    }
    let expected = match r.status {
        Status::Fail => format!("expected {}, got ", r.expect),
        _ => String::new(),
    };
    // an input error's details are its diagnostic, whose first line is the reason
    if r.status != Status::Error || r.details.is_empty() {
        mowgli_check::outln!("    {expected}{}: {}", r.verdict.word(), r.why);
    }
    for d in &r.details {
        for l in d.lines() {
            mowgli_check::outln!("    {l}");
        }
    }
}

/// `--list`: an entry's id, expectation, groups and what it checks.
fn describe(e: &Entry) -> String {
    let what = match &e.check {
        Check::Litmus(l) => l.paths.iter().map(|p| p.get_ref().as_str()).collect::<Vec<_>>().join(" "),
        Check::Refine(r) => {
            let mut w = r.implementation.get_ref().clone();
            if !r.clients.is_empty() {
                let c: Vec<&str> = r.clients.iter().map(|p| p.get_ref().as_str()).collect();
                w += &format!(" --clients {}", c.join(" "));
            }
            if r.generates() {
                w += &match (r.calls, r.size) {
                    (None, None) => " (generated clients, default bound)".to_string(),
                    (c, s) => format!(
                        " (generated clients{}{})",
                        c.map(|c| format!(", {c} calls per thread")).unwrap_or_default(),
                        s.map(|s| format!(", {s} calls in all")).unwrap_or_default()
                    ),
                };
            }
            w
        }
        Check::Obligations(o) => format!("{} ({} calls per thread)", o.implementation.get_ref(), o.calls.unwrap_or(2)),
    };
    let groups = if e.common.groups.is_empty() { String::new() } else { format!(" [{}]", e.common.groups.join(", ")) };
    format!("{}  expect {}{groups}: {what}", e.id(), e.common.expect.word())
}
