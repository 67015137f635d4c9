//! A `[[litmus]]` entry: its tests run as `mowgli litmus` runs them, decided by
//! the same summary.

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::{stamp_order, Ran};
use crate::analyses::litmus::{self, operational::LitmusEngine as Engine, Summary};
use crate::analyses::verdict::{Decided, Verdict};
use crate::lang::lower::DomainLimits;
use crate::lang::project::{LitmusEngine, LitmusEntry, Project};

pub(super) fn run(
    project: &Project,
    e: &LitmusEntry,
    time_limit: Option<Duration>,
    draw: bool,
    cat: &Catalogue,
) -> Ran {
    let order = match stamp_order(project, &e.stamp_order) {
        Ok(o) => o,
        Err(r) => return r,
    };
    let paths: Vec<PathBuf> = e.paths.iter().map(|p| project.path(p.get_ref())).collect();
    let files = match litmus::collect(&paths) {
        Ok(f) => f,
        Err(d) => return Ran::error(d),
    };
    let engine = match e.engine {
        LitmusEngine::Explicit => Engine::Explicit,
        LitmusEngine::Z3 => Engine::Z3,
        LitmusEngine::Operational => Engine::Operational,
        LitmusEngine::OperationalSimplified => Engine::OperationalSimplified,
        LitmusEngine::Both => Engine::Both,
    };
    let limits =
        DomainLimits { max_values: e.max_values.unwrap_or(crate::lang::lower::MAX_VALUES), ..Default::default() };
    let start = Instant::now();
    let (mut reports, mut errors, mut details, mut graphs) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut not_started = 0;
    for f in &files {
        if time_limit.is_some_and(|t| start.elapsed() >= t) {
            not_started += 1;
            continue;
        }
        let checked = if draw {
            litmus::show::check_file_drawn(f, &order, cat, engine, limits, litmus::show::Show::Failing)
        } else {
            litmus::check_file_engine(f, &order, cat, engine, limits).map(|r| (r, Vec::new()))
        };
        match checked {
            Ok((r, drawings)) => {
                details.extend(litmus::details(&r));
                graphs.extend(drawings.into_iter().map(|d| (format!("{}: {}", r.name, d.caption), d.graph)));
                reports.push(r);
            }
            Err(d) => {
                details.push(d.render());
                errors.push(d);
            }
        }
    }
    let mut decided = Summary::of(&reports, errors.len()).decide();
    if not_started > 0 && decided.verdict == Verdict::Verified {
        decided = Decided::new(
            Verdict::Inconclusive,
            format!("the time limit stopped the run: {not_started} of {} tests not run", files.len()),
        );
    }
    Ran { decided, details, graphs }
}
