//! What `mowgli litmus --dot DIR` and `--html DIR` draw, and which executions
//! (`--show`, after herd7's `-show`): the counterexample of a failing
//! `forbidden` expectation, a cycle that forbids the outcome of a failing
//! `allowed` one, and on request an execution of every reached expectation or
//! of every reachable outcome.

use mowgli_libs::catalogue::Catalogue;
use std::path::Path;

use mowgli_core::StampOrder;
use mowgli_draw::html::{Section, Tone};
use mowgli_draw::Graph;

use super::{declarative, execution_graph, operational::LitmusEngine, TestReport, Witnesses};
use crate::analyses::reason;
use crate::lang::lower::{self, DomainLimits};
use crate::lang::InputError;

/// Which executions are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Show {
    /// The expectations that fail: a counterexample execution (`forbidden`), or a
    /// cycle forbidding the outcome (`allowed`, when the library explains it).
    Failing,
    /// Also an execution of every `allowed` expectation that holds (herd7's
    /// `-show prop`).
    Allowed,
    /// Also one execution per reachable outcome, and the forbidding cycle of
    /// every `forbidden` expectation that holds.
    All,
}

/// A graph to draw, with its caption and the file name it is written under
/// (`--dot`: `DIR/STEM.dot`).
#[derive(Clone, Debug)]
pub struct Drawing {
    pub caption: String,
    pub stem: String,
    pub graph: Graph,
}

/// Complete witnesses tried at most when looking for a forbidding cycle.
pub const CYCLE_BUDGET: u64 = 1 << 18;

/// [`super::check_file_engine`], and the drawings `show` asks for. Graphs come
/// from the declarative engine's executions: with an operational engine
/// (which builds no witness) there are none.
pub fn check_file_drawn(
    path: &Path,
    order: &StampOrder,
    cat: &Catalogue,
    eng: LitmusEngine,
    limits: DomainLimits,
    show: Show,
) -> Result<(TestReport, Vec<Drawing>), InputError> {
    if eng.machine().is_some() {
        return super::check_file_engine(path, order, cat, eng, limits).map(|r| (r, vec![]));
    }
    let file = path.display().to_string();
    let text = mowgli_diag::read_source(path, &file)?;
    let (report, low, witnesses) = declarative(&file, &text, order, cat, true, eng.backend(), limits)?;
    let drawings = drawings(&low, &report, &witnesses, order, show);
    Ok((report, drawings))
}

fn drawings(low: &lower::Lowered, r: &TestReport, ws: &Witnesses, order: &StampOrder, show: Show) -> Vec<Drawing> {
    let mut out = Vec::new();
    for (e, x) in r.expectations.iter().zip(&low.expects) {
        let what = format!("`expect {} {}` (line {})", e.kind, e.condition, e.line);
        let stem = format!("{}-l{}", r.name, e.line);
        match ws.iter().find(|(o, _)| x.cond.holds(o)) {
            Some((o, Some(w))) if !x.allowed || show >= Show::Allowed => {
                let (caption, title) = if x.allowed {
                    (format!("an execution with the outcome of {what}"), format!("{}: allowed", r.name))
                } else {
                    (
                        format!("counterexample to {what}: a consistent execution with this outcome"),
                        format!("{}: counterexample", r.name),
                    )
                };
                out.push(Drawing { caption, stem, graph: execution_graph(low, title, o, w) });
            }
            None if !x.allowed && show < Show::All => {}
            None => {
                let Some(to) = order.table("to") else { continue };
                let p = lower::problem(low, to);
                let holds = |o: &crate::engines::explicit::Outcome| x.cond.holds(o);
                if let Ok(Some(rs)) = reason::reasons(&p, &holds, CYCLE_BUDGET, 1) {
                    if let Some(ex) = rs.examples.first() {
                        let title = format!("{}: why {} is forbidden", r.name, e.condition);
                        let caption = format!(
                            "{what}: no consistent execution has it; a candidate execution and the cycle that breaks {}",
                            ex.violation.axiom
                        );
                        out.push(Drawing { caption, stem, graph: reason::graph(low, title, ex) });
                    }
                }
            }
            _ => {}
        }
    }
    if show == Show::All {
        for (k, (o, w)) in ws.iter().enumerate() {
            let Some(w) = w else { continue };
            let title = format!("{}: outcome {}", r.name, k + 1);
            out.push(Drawing {
                caption: format!("reachable outcome {} of {}", k + 1, ws.len()),
                stem: format!("{}-o{}", r.name, k + 1),
                graph: execution_graph(low, title, o, w),
            });
        }
    }
    out
}

/// A test as a section of the HTML report: its status, its text report, its graphs.
pub fn section(r: &TestReport, drawings: &[Drawing]) -> Section {
    let status = if r.all_ok() {
        "ok"
    } else if r.expectations.iter().any(|e| !e.passed()) || !r.engine_differences.is_empty() {
        "FAIL"
    } else if r.no_outcome.is_some() {
        "EMPTY"
    } else {
        "INCONCLUSIVE"
    };
    let tone = match status {
        "ok" => Tone::Pass,
        "FAIL" | "EMPTY" => Tone::Fail,
        _ => Tone::Other,
    };
    Section {
        name: r.name.clone(),
        status: status.into(),
        tone,
        text: super::render(r, false),
        graphs: drawings.iter().map(|d| (d.caption.clone(), d.graph.clone())).collect(),
    }
}
