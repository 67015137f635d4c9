//! Robustness of RDMA programs (`mowgli robust`): Ambal, Lahav, Raad, "Sufficient
//! Conditions for Robustness of RDMA Programs" (`rdma-robustness.txt`).
//!
//! - The exact check (Def. 5 / Def. 11): every consistent execution of the program
//!   under the model (RDMA^sc: library `rdmasc`, Def. 4; RDMA^TSO: `rdmatso`, Def. 10)
//!   is SC-consistent, i.e. sc = po ∪ rf ∪ rb ∪ mo is acyclic over events (the
//!   paper's events are Mowgli's subevents: a put is nlR; nrW, a get nrR; nlW). The
//!   engine visits every consistent execution ([`engine::for_each_execution`]).
//! - Outcome robustness besides execution robustness: the SC outcomes are the outcomes
//!   of the consistent executions whose sc is acyclic. That is exactly the program's
//!   outcomes under SC: an execution with acyclic sc is consistent under both models
//!   (choose nfo along po; then ippo, oppo, pf, nfo ⊆ po and rf, rb, mo ⊆ sc, so ib
//!   and ob lie in sc⁺, which is acyclic), so the engine visits it, and an
//!   interleaving of the events along a linear extension of sc is an SC run with
//!   that outcome (and every SC run gives such an execution). `tests/robust.rs`
//!   checks this against an independent interleaving interpreter.
//! - The syntactic conditions on pre-executions (⟨E, po, pf⟩, per combination of
//!   the threads' unfoldings): gb (Def. 6, Fig. 5) and gb_tso (Def. 12), LDRF
//!   (Def. 7), fenced (Def. 8, Def. 13), tree-fenced (Def. 9, Def. 14); every
//!   failing pair is named with its lines and the fence or poll Fig. 5 prescribes.
//!
//! The files: [`preexec`] (pre-executions and gb), [`syntactic`] (LDRF, fenced,
//! tree-fenced), [`exact`] (the exact check, sc cycles, ob and the theorem facts),
//! [`fix`] (fence synthesis); this file: the model, the report and the command.

// relations over event indices: index loops read best here
#![allow(clippy::needless_range_loop)]

use mowgli_libs::catalogue::Catalogue;
use std::path::Path;

use mowgli_core::{StampOrder, StampTable};
use serde::Serialize;

use crate::analyses::litmus;
use crate::lang::{lower, InputError};

mod candidates;
mod exact;
mod fix;
mod fix_reference;
mod nofix;
mod preexec;
pub mod random;
mod reference;
mod star;
mod syntactic;
mod vocab;

use candidates::*;
pub use exact::*;
pub use fix::*;
pub use fix_reference::*;
pub use nofix::*;
pub use preexec::*;
pub use reference::*;
pub use star::*;
pub use syntactic::*;
use vocab::{Models, Op, Vocab};

/// One test as the robustness checks see it: its file and text (the source its
/// positions refer to, for diagnostics; an edited test keeps the original's), the
/// stamp order and the catalogue its libraries are read from.
#[derive(Clone, Copy)]
pub(crate) struct Subject<'a> {
    pub file: &'a str,
    pub text: &'a str,
    pub order: &'a StampOrder,
    pub cat: &'a Catalogue,
    /// Iterations a loop that is no spin or retry loop is unrolled to
    /// (`--loop-bound`).
    pub loop_bound: usize,
}

impl<'a> Subject<'a> {
    pub fn new(file: &'a str, text: &'a str, order: &'a StampOrder, cat: &'a Catalogue) -> Subject<'a> {
        Subject { file, text, order, cat, loop_bound: lower::LOOP_BOUND }
    }

    /// The test `ast` lowered, its loops unrolled to [`Subject::loop_bound`] (a
    /// value domain cut by its limit is an error, as in [`lower::lower`]).
    pub fn lower(&self, ast: &crate::lang::syntax::Litmus) -> Result<lower::Lowered, lower::SemError> {
        let limits = lower::DomainLimits { loop_bound: self.loop_bound, ..lower::DomainLimits::default() };
        lower::lower_complete(ast, self.order, self.cat, limits)
    }
}

/// The two models of the paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Model {
    /// RDMA^sc (Def. 4), library `rdmasc`.
    Sc,
    /// RDMA^TSO (Def. 10), library `rdmatso`.
    Tso,
}

impl Model {
    /// The model's `--model` value, as reports name it (the library a test runs
    /// under is the one its library declares for the model: [`vocab::Models`]).
    pub fn label(self) -> &'static str {
        match self {
            Model::Sc => "rdmasc",
            Model::Tso => "rdmatso",
        }
    }
    /// The model a `--model` value names (user input, not a library's name).
    pub fn parse(s: &str) -> Option<Model> {
        match s {
            "rdmasc" | "sc" => Some(Model::Sc),
            "rdmatso" | "tso" => Some(Model::Tso),
            _ => None,
        }
    }
    /// The tables (ippo, oppo) of the model in `order`.
    pub(super) fn tables(self, order: &StampOrder) -> Option<(&StampTable, &StampTable)> {
        match self {
            Model::Sc => Some((order.table("ippo_sc")?, order.table("oppo_sc")?)),
            Model::Tso => Some((order.table("ippo")?, order.table("oppo")?)),
        }
    }
}

/// `mowgli robust` on one file.
pub fn check_file(
    path: &Path,
    order: &StampOrder,
    cat: &Catalogue,
    model: Option<Model>,
) -> Result<RobustReport, InputError> {
    let file = path.display().to_string();
    let text = mowgli_diag::read_source(path, &file)?;
    check_text(&file, &text, order, cat, model)
}

/// Human-readable report of one test.
pub fn render(r: &RobustReport) -> String {
    let mut s = format!("test {} ({}) under {}\n", r.name, r.file, r.library);
    let verdict = |b: bool| if b { "robust" } else { "NOT robust" };
    if !r.exact {
        s += &format!(
            "  exact check skipped (--syntactic): {} by the sufficient conditions (Thm. 5)\n",
            if r.robust { "robust" } else { "not shown robust" }
        );
    }
    if r.exact {
        s += &format!(
            "  execution robustness (Def. {}): {} ({} of {} consistent executions have an sc cycle)\n",
            if r.model == Model::Tso { "11" } else { "5" },
            verdict(r.robust),
            r.cyclic,
            r.executions
        );
        s += &format!(
            "  outcome robustness: {} ({} outcomes, {} of them SC)\n",
            verdict(r.outcome_robust),
            r.outcomes.len(),
            r.sc_outcomes.len()
        );
        for o in &r.non_sc_outcomes {
            s += &format!("    no SC run has: {}\n", crate::analyses::generate::outcome_text(o));
        }
    }
    if let (Some(steps), Some(o)) = (&r.cycle, &r.cycle_outcome) {
        s += &format!(
            "  a consistent execution with an sc cycle{} (outcome {}):\n",
            if r.cycle_single_thread == Some(true) { " within one thread" } else { "" },
            crate::analyses::generate::outcome_text(o)
        );
        if let Some(x) = &r.execution {
            for l in x.lines() {
                s += &format!("    {l}\n");
            }
        }
        let _ = steps;
    }
    let y = |b: bool| if b { "holds" } else { "fails" };
    let syn = &r.syntactic;
    if !syn.outside.is_empty() {
        s += &format!(
            "  syntactic: not applicable: the sufficient conditions (Defs. 6-14) have no event type for a remote \
             read-modify-write ({}); the exact check decides\n",
            syn.outside.join(", ")
        );
    }
    let (f, tf) = if r.model == Model::Tso { ("Def. 13", "Def. 14") } else { ("Def. 8", "Def. 9") };
    s += &format!(
        "  syntactic{}: LDRF (Def. 7) {}, fenced ({f}) {}, tree-fenced ({tf}) {}: {}\n",
        if syn.outside.is_empty() { "" } else { ", over the other events" },
        y(syn.ldrf),
        y(syn.fenced),
        y(syn.tree_fenced),
        if syn.sufficient() {
            "robust by Thm. 5".to_string()
        } else if syn.outside.is_empty() && syn.ldrf && syn.tree_fenced {
            "robust by Cor. 1".to_string()
        } else {
            "the sufficient conditions do not show robustness".to_string()
        }
    );
    for v in &syn.violations {
        s += &format!("    {}: {}\n", v.condition, v.render());
    }
    if syn.violations_total > syn.violations.len() {
        s += &format!("    … {} violations in all, the first {} shown\n", syn.violations_total, syn.violations.len());
    }
    if r.bounded {
        s += &format!(
            "  note: a loop reached the unrolling bound ({} iterations); runs that stay in it longer were not \
             explored, so only a non-SC execution found decides (raise --loop-bound)\n",
            r.loop_bound
        );
    }
    s
}

/// What `mowgli robust` writes besides its report: the JSON document instead of
/// the human report, graphs (`--dot DIR`), and the fixed programs (`--fix`, with
/// `--out DIR` or not).
#[derive(Clone, Copy, Default)]
pub struct Outputs<'a> {
    pub json: bool,
    pub dot: Option<&'a Path>,
    pub fix_out: Option<Option<&'a Path>>,
}

/// `mowgli robust PATH... [--model M] [--json] [--dot DIR]`: runs the check on every
/// test, prints the human reports (unless `json`), and returns the verdict and the
/// JSON document. Verdict: `verified` (0) every test is robust, `counterexample` (1)
/// one is not, `error` (2) an input is malformed (reported on stderr), `inconclusive`
/// (3) none is refuted but a loop reached its unrolling bound.
pub fn cli(
    paths: &[std::path::PathBuf],
    model: Option<&str>,
    out: Outputs,
    exact: bool,
    order: &StampOrder,
    cat: &Catalogue,
    loop_bound: usize,
) -> (crate::analyses::verdict::Decided, Option<serde_json::Value>) {
    let Outputs { json, dot, fix_out } = out;
    use crate::analyses::verdict::{Decided, Verdict};
    let err = |msg: String| {
        eprintln!("{msg}");
        (
            Decided::new(Verdict::Error, msg.lines().next().unwrap_or_default().to_string()),
            json.then(|| serde_json::json!({ "errors": [msg] })),
        )
    };
    let model = match model {
        None => None,
        Some(m) => match Model::parse(m) {
            Some(m) => Some(m),
            None => return err(format!("--model {m}: expected `rdmasc` or `rdmatso`")),
        },
    };
    let files = match litmus::collect(paths) {
        Ok(f) => f,
        Err(e) => return err(e.on_command_line().to_string()),
    };
    if let Some(d) = dot {
        if let Err(e) = std::fs::create_dir_all(d) {
            return err(mowgli_diag::Diagnostic::output(d, format!("cannot create: {e}")).to_string());
        }
    }
    let mut reports = Vec::new();
    let mut fixes = Vec::new();
    let mut errors = Vec::new();
    let mut limits = 0usize;
    for f in &files {
        // the file is read and parsed once: the check and the fix search take the test
        let file = f.display().to_string();
        let checked = mowgli_diag::read_source(f, &file).and_then(|text| {
            let ast = parsed(&file, &text)?;
            let s = Subject { loop_bound, ..Subject::new(&file, &text, order, cat) };
            check_parsed(&s, ast.clone(), model, exact).map(|r| (r, text, ast))
        });
        match checked {
            Ok((r, text, ast)) => {
                if !json {
                    crate::out!("{}", render(&r));
                }
                if let Some(out_dir) = fix_out {
                    let mut pair = Vec::new();
                    for goal in [FixGoal::Syntactic, FixGoal::Exact] {
                        let s = Subject { loop_bound, ..Subject::new(&r.file, &text, order, cat) };
                        let found = fix_why_parsed(&s, &ast, false, r.model, goal).and_then(|w| match w {
                            Ok(f) => Ok((Some(f), None)),
                            Err(e) => explain_parsed(&s, &ast, r.model, goal, e).map(|why| (None, Some(why))),
                        });
                        match found {
                            Ok((fx, why)) => {
                                if !json {
                                    match &why {
                                        Some(why) => crate::out!("{}", render_no_fix(why, goal)),
                                        None => crate::out!("{}", render_fix(&fx, goal)),
                                    }
                                }
                                let tag = if goal == FixGoal::Exact { "exact" } else { "syntactic" };
                                if let (Some(d), Some(fx)) = (out_dir, &fx) {
                                    let name = format!("{}-fixed-{tag}.litmus", r.name);
                                    errors.extend(write_output(d, &name, &fx.text));
                                }
                                if let (Some(d), Some(NoFixReason::PollInTheWay { fix, .. })) = (out_dir, &why) {
                                    let name = format!("{}-fixed-{tag}-moved.litmus", r.name);
                                    errors.extend(write_output(d, &name, &fix.text));
                                }
                                pair.push((fx, why));
                            }
                            Err(e) => {
                                eprintln!("{e}");
                                errors.push(e.to_string());
                            }
                        }
                    }
                    let (fx, why): (Vec<_>, Vec<_>) = pair.into_iter().unzip();
                    fixes.push(serde_json::json!({
                        "test": r.name,
                        "syntactic": fx.first(),
                        "exact": fx.get(1),
                        "syntactic_no_fix": why.first(),
                        "exact_no_fix": why.get(1),
                    }));
                }
                if let (Some(d), Some(text)) = (dot, &r.dot) {
                    errors.extend(write_output(d, &format!("{}.dot", r.name), text));
                }
                reports.push(r);
            }
            // a limit of the tool (not a malformed test) leaves the run uncovered
            Err(e) if e.limit => {
                eprintln!("{e}");
                limits += 1;
            }
            Err(e) => {
                eprintln!("{e}");
                errors.push(e.to_string());
            }
        }
    }
    // without the exact check, a test the sufficient conditions do not show robust
    // is undecided, not refuted (Thm. 5 is sound, not complete)
    let not_robust = reports.iter().filter(|r| r.exact && !r.robust).count();
    let not_shown = reports.iter().filter(|r| !r.exact && !r.robust).count();
    // a loop cut at the unrolling bound: its longer runs were not explored, so a
    // test found robust is robust only on the runs found (undecided); a non-SC
    // execution found is real
    let bounded = reports.iter().filter(|r| r.bounded && r.robust).count();
    let verdict = Verdict::of(!errors.is_empty(), not_robust > 0, limits == 0 && not_shown == 0 && bounded == 0);
    let why = format!(
        "{} of {} tests robust, {} not robust{}{}{}{}",
        reports.len() - not_robust - not_shown - bounded,
        reports.len(),
        not_robust,
        if not_shown == 0 {
            String::new()
        } else {
            format!(", {not_shown} not shown robust by the sufficient conditions (the exact check decides: drop --syntactic)")
        },
        if errors.is_empty() { String::new() } else { format!(", {} malformed", errors.len()) },
        if limits > 0 { format!(", {limits} cut by a limit of the tool (see above)") } else { String::new() },
        if bounded > 0 {
            format!(
                ", {bounded} robust only on the runs within the unrolling bound ({loop_bound} iterations per loop; a \
                 loop reached it, and runs that stay in it longer were not explored: raise --loop-bound, or bound \
                 the loop in the test)"
            )
        } else {
            String::new()
        }
    );
    let doc = json.then(|| serde_json::json!({ "tests": reports, "fixes": fixes, "errors": errors }));
    (Decided::new(verdict, why), doc)
}

/// Writes `text` as `dir/name` (creating `dir`): on failure, the diagnostic at
/// the command line's word naming the output, shown on stderr and returned.
fn write_output(dir: &Path, name: &str, text: &str) -> Option<String> {
    let p = dir.join(name);
    let w = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&p, text));
    let e = w.err()?;
    let d = mowgli_diag::Diagnostic::output(&p, format!("cannot write: {e}")).to_string();
    eprintln!("{d}");
    Some(d)
}

#[cfg(test)]
mod render_tests;
