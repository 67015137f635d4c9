//! `mowgli check`: every entry of a project file (`lang::project`) run through the
//! analyses (not the binary), each entry's verdict compared with the one it
//! expects, and the run's verdict from those comparisons.
//!
//! An entry's status is `ok` (the expected verdict), `FAIL` (the other of
//! `verified`/`counterexample`; for an entry expecting `inconclusive`, either),
//! `inconclusive` (a limit stopped it before it decided) or `error` (bad input). The run's verdict is the strongest status:
//! `error` (exit 2) over `FAIL` (exit 1, `counterexample`) over `inconclusive`
//! (exit 3) over all `ok` (exit 0, `verified`).

mod litmus;
mod obligations;
mod refine;

use mowgli_libs::catalogue::Catalogue;
use std::time::Instant;

use mowgli_core::StampOrder;
use serde::Serialize;

use crate::analyses::junit;
use crate::analyses::verdict::{Decided, Verdict};
use crate::lang::project::{Check, Entry, Expect, Project};

/// How an entry's verdict compares with the one it expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Fail,
    Inconclusive,
    Error,
}

impl Status {
    fn of(expect: Expect, verdict: Verdict) -> Status {
        match (expect, verdict) {
            (_, Verdict::Error) => Status::Error,
            (Expect::Inconclusive, Verdict::Inconclusive) => Status::Ok,
            (_, Verdict::Inconclusive) => Status::Inconclusive,
            (Expect::Verified, Verdict::Verified) | (Expect::Counterexample, Verdict::Counterexample) => Status::Ok,
            _ => Status::Fail,
        }
    }

    /// The run verdict this status stands for.
    pub fn verdict(self) -> Verdict {
        match self {
            Status::Ok => Verdict::Verified,
            Status::Fail => Verdict::Counterexample,
            Status::Inconclusive => Verdict::Inconclusive,
            Status::Error => Verdict::Error,
        }
    }

    /// The word in the report's first column.
    pub fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Fail => "FAIL",
            Status::Inconclusive => "INCONCLUSIVE",
            Status::Error => "ERROR",
        }
    }
}

/// What one entry's check found.
#[derive(Clone, Debug, Serialize)]
pub struct EntryReport {
    /// `KIND/NAME`.
    pub id: String,
    pub kind: &'static str,
    pub name: String,
    pub expect: &'static str,
    pub verdict: Verdict,
    /// Why the check reached its verdict (the command's own reason).
    pub why: String,
    pub status: Status,
    pub millis: f64,
    /// What failed, was cut or could not be read, one item each (a failing test and
    /// expectation, a failing client and its text, a refuted obligation, a diagnostic).
    pub details: Vec<String>,
    /// The pictures of what failed, each with a caption (drawn when
    /// [`RunOptions::graphs`] asks; the JSON report leaves them out).
    #[serde(skip)]
    pub graphs: Vec<(String, mowgli_draw::Graph)>,
}

/// A check's verdict and what to show of it.
pub(crate) struct Ran {
    decided: Decided,
    details: Vec<String>,
    /// The pictures of what failed (with [`RunOptions::graphs`]), each with a caption.
    graphs: Vec<(String, mowgli_draw::Graph)>,
}

impl Ran {
    fn new(decided: Decided, details: Vec<String>) -> Ran {
        Ran { decided, details, graphs: Vec::new() }
    }

    fn error(msg: impl std::fmt::Display) -> Ran {
        let text = msg.to_string();
        let first = text.lines().next().unwrap_or_default().to_string();
        Ran::new(Decided::new(Verdict::Error, first), vec![text])
    }
}

/// Options of the whole run (`mowgli check`).
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Seconds, for the entries without their own `time-limit`.
    pub time_limit: Option<f64>,
    /// Worker threads of generated refinement runs (default: the available parallelism).
    pub jobs: Option<usize>,
    /// Draw what fails (a failing test's execution, a client's counterexample, a
    /// refuted obligation) for the HTML report (`mowgli check --html`).
    pub graphs: bool,
}

/// The entries `--only` and `--group` keep: an entry is kept when its id matches
/// one of `only` (a substring, or a pattern with `*` matching the whole id) and it
/// is in one of `groups` (none given: every entry).
pub fn select<'a>(project: &'a Project, only: &[String], groups: &[String]) -> Vec<&'a Entry> {
    project
        .entries
        .iter()
        .filter(|e| only.is_empty() || only.iter().any(|p| matches(p, &e.id())))
        .filter(|e| groups.is_empty() || groups.iter().any(|g| e.common.groups.contains(g)))
        .collect()
}

/// `pattern` matches `id`: as a substring, or with `*` as a wildcard over the whole id.
fn matches(pattern: &str, id: &str) -> bool {
    if !pattern.contains('*') {
        return id.contains(pattern);
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !id.starts_with(first) || id.len() < first.len() + last.len() || !id.ends_with(last) {
        return false;
    }
    let mut rest = &id[first.len()..id.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    true
}

/// Runs one entry of `project`.
pub fn run_entry(project: &Project, entry: &Entry, opts: &RunOptions, cat: &Catalogue) -> EntryReport {
    let start = Instant::now();
    let time_limit = entry.common.time_limit.or(opts.time_limit).map(std::time::Duration::from_secs_f64);
    let ran = match &entry.check {
        Check::Litmus(l) => litmus::run(project, l, time_limit, opts.graphs, cat),
        Check::Refine(r) => refine::run(project, r, time_limit, opts.jobs, cat),
        Check::Obligations(o) => obligations::run(project, o, time_limit, cat),
    };
    let Ran { decided, details, graphs } = ran;
    EntryReport {
        id: entry.id(),
        kind: entry.kind(),
        name: entry.common.name.clone(),
        expect: entry.common.expect.word(),
        verdict: decided.verdict,
        status: Status::of(entry.common.expect, decided.verdict),
        why: decided.why,
        millis: start.elapsed().as_secs_f64() * 1000.0,
        details,
        graphs,
    }
}

/// The run's verdict: the strongest status, and why.
pub fn decide(reports: &[EntryReport]) -> Decided {
    let count = |s: Status| reports.iter().filter(|r| r.status == s).count();
    let verdict = reports.iter().map(|r| r.status.verdict()).max().unwrap_or(Verdict::Error);
    let ids = |s: Status| {
        let ids: Vec<&str> = reports.iter().filter(|r| r.status == s).map(|r| r.id.as_str()).collect();
        ids.join(", ")
    };
    let n = reports.len();
    let why = match verdict {
        _ if reports.is_empty() => "no entry selected: nothing was checked".to_string(),
        Verdict::Error => format!("{} of {n} entries have bad input: {}", count(Status::Error), ids(Status::Error)),
        Verdict::Counterexample => {
            format!("{} of {n} entries differ from their expectation: {}", count(Status::Fail), ids(Status::Fail))
        }
        Verdict::Inconclusive => format!(
            "{} of {n} entries were stopped by a limit before they decided: {}",
            count(Status::Inconclusive),
            ids(Status::Inconclusive)
        ),
        Verdict::Verified => format!("all {n} entries reach their expected verdict"),
    };
    Decided::new(verdict, why)
}

/// The JUnit XML document of a run: one suite per kind of entry, one case per entry.
pub fn junit(project: &Project, reports: &[EntryReport]) -> String {
    let mut suites: Vec<junit::Suite> = Vec::new();
    for r in reports {
        let expected = match r.expect {
            "counterexample" => Verdict::Counterexample,
            _ => Verdict::Verified,
        };
        let case = junit::Case::of_verdict(
            &format!("mowgli.{}", r.kind),
            &r.name,
            r.millis / 1000.0,
            expected,
            r.verdict,
            &r.why,
            &r.details.join("\n\n"),
        );
        match suites.iter_mut().find(|s| s.name == r.kind) {
            Some(s) => s.cases.push(case),
            None => suites.push(junit::Suite { name: r.kind.to_string(), cases: vec![case] }),
        }
    }
    junit::render(&format!("mowgli check {}", project.file.display()), &suites)
}

/// The stamp order of an entry: the default one, or the file it names.
fn stamp_order(project: &Project, file: &Option<toml::Spanned<String>>) -> Result<StampOrder, Ran> {
    let order = mowgli_libs::orders::default_order();
    match file {
        Some(f) => crate::lang::stamporder::load(&project.path(f.get_ref()), &order).map_err(Ran::error),
        None => Ok(order),
    }
}

/// The implementation an entry names, under `order`, against `spec` if given.
fn implementation(
    project: &Project,
    file: &toml::Spanned<String>,
    spec: &Option<toml::Spanned<String>>,
    order: &StampOrder,
    cat: &Catalogue,
) -> Result<crate::lang::implementation::Implementation, Ran> {
    let path = project.path(file.get_ref());
    let mut imp = crate::lang::implementation::Implementation::load(&path, order, cat).map_err(Ran::error)?;
    if let Some(lib) = spec {
        let name = lib.get_ref();
        imp.against(name, order).map_err(|e| {
            let d = project.at(lib.span(), format!("`spec = \"{name}\"`: {e}"));
            let known = cat.known();
            Ran::error(if known.contains(name) {
                d
            } else {
                d.with_label("unknown").suggesting(name, known.iter().map(String::as_str))
            })
        })?;
    }
    Ok(imp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_substrings_or_whole_ids() {
        assert!(matches("isv", "refine/isv_gf_nowait"));
        assert!(matches("refine/*nowait", "refine/isv_gf_nowait"));
        assert!(!matches("refine/*nowait", "obligations/isv_gf_nowait"));
        assert!(matches("*", "litmus/x"));
        assert!(matches("refine/i*v*", "refine/isv"));
        assert!(!matches("refine/a*a", "refine/a"));
    }

    #[test]
    fn statuses_compare_with_the_expectation() {
        assert_eq!(Status::of(Expect::Counterexample, Verdict::Counterexample), Status::Ok);
        assert_eq!(Status::of(Expect::Counterexample, Verdict::Verified), Status::Fail);
        assert_eq!(Status::of(Expect::Verified, Verdict::Inconclusive), Status::Inconclusive);
        assert_eq!(Status::of(Expect::Verified, Verdict::Error), Status::Error);
    }
}
