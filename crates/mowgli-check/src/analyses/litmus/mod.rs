//! The litmus front end: parse, check, run, and report (`mowgli litmus`).

mod files;
pub mod herdlog;
mod no_outcome;
pub mod operational;
pub mod show;
mod summary;

pub use files::collect;
pub use summary::{details, Summary};

use crate::lang::{herd, lower, syntax};
use mowgli_libs::catalogue::Catalogue;

use std::collections::BTreeMap;
use std::path::Path;

use mowgli_core::StampOrder;
use serde::Serialize;

use crate::engines::explicit::{self, EngineError, Stats};
use crate::lang::lower::DomainLimits;

/// An input that cannot be read, is malformed, or is ill-typed: a
/// [`mowgli_diag::Diagnostic`], shown as `file:line:column: message`, the source
/// line with a caret under the culprit, and a suggestion.
use crate::lang::InputError;

#[derive(Debug, Clone, Serialize)]
pub struct ExpectReport {
    pub kind: &'static str,
    pub condition: String,
    pub line: usize,
    /// The expectation holds.
    pub ok: bool,
    /// Whether the run decides it: a run whose value domain or unfolding a limit
    /// cut ([`TestReport::inconclusive`]), or where a loop reached the unrolling
    /// bound ([`TestReport::bounded`]), found only real outcomes, but maybe not
    /// all: it decides an `allowed` line it reached and a `forbidden` line it
    /// reached (a real counterexample), not the others.
    pub decided: bool,
    /// A documented disagreement with the source: the text of a `# DISAGREES:`
    /// comment in the comment block right above the `expect` line (an extension of
    /// the format, see `docs/formats.md`).
    pub known: Option<String>,
    /// For a `forbidden` expectation that fails: a consistent execution whose
    /// outcome satisfies the condition (the counterexample), as text and as DOT.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dot: Option<String>,
    /// The test reached no outcome: the expectation is not checked (`ok` is false).
    pub no_outcome: bool,
}

impl ExpectReport {
    /// `ok`, `FAIL`, `known` (fails as documented), `FIXED` (holds although
    /// documented as failing: the note is stale) or `EMPTY` (the test reached no
    /// outcome: nothing to check the expectation against).
    pub fn status(&self) -> &'static str {
        if self.no_outcome {
            return "EMPTY";
        }
        if !self.decided {
            return "undecided";
        }
        match (self.ok, self.known.is_some()) {
            (true, false) => "ok",
            (false, false) => "FAIL",
            (false, true) => "known",
            (true, true) => "FIXED",
        }
    }
    /// Whether this expectation counts as passing for the exit status (an
    /// undecided one makes the run inconclusive instead).
    pub fn passed(&self) -> bool {
        !self.no_outcome && (!self.decided || self.ok != self.known.is_some())
    }
}

/// The `# DISAGREES:` note in the block of comment lines directly above line `line`.
fn disagreement_note(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut i = line.checked_sub(1)?;
    let mut note: Option<String> = None;
    while i > 0 {
        let l = lines.get(i - 1)?.trim_start();
        let Some(c) = l.strip_prefix('#') else { break };
        if let Some(n) = c.trim_start().strip_prefix("DISAGREES:") {
            note = Some(n.trim().to_string());
        }
        i -= 1;
    }
    note
}

#[derive(Debug, Clone, Serialize)]
pub struct TestReport {
    pub file: String,
    pub name: String,
    pub libraries: Vec<String>,
    /// Reachable outcomes, each a map from `T:r` / `x` / `x@n` to its value.
    pub outcomes: Vec<BTreeMap<String, String>>,
    pub expectations: Vec<ExpectReport>,
    pub stats: Stats,
    /// A loop reached the unrolling bound: runs that stay in it longer were not
    /// explored, so outcomes may be missing (what the outcomes found decide holds;
    /// the rest is undecided: [`TestReport::bound_open`]).
    pub bounded: bool,
    /// Why the run is inconclusive: a limit (the value domain's, the number of
    /// unfoldings) cut it, so some outcomes may be missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inconclusive: Option<String>,
    /// For a test read from herd7's x86 format: herd's verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub herd: Option<herdlog::HerdResult>,
    /// `--engine operational|operational-simplified|both`: what the machine explored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<crate::engines::operational::MachineStats>,
    /// `--engine both`: every outcome one engine has and the other has not (a bug
    /// in one engine: RDMA paper Thm. 4.5 says there is none); each fails the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub engine_differences: Vec<String>,
    /// The test reached no outcome at all, and the likely reason (`null` when it
    /// has outcomes): see [`no_outcome`].
    pub no_outcome: Option<String>,
}

impl TestReport {
    /// Every expectation passes (holds, or fails as documented), and the run
    /// decided them all.
    pub fn all_ok(&self) -> bool {
        self.expectations.iter().all(|e| e.passed())
            && self.engine_differences.is_empty()
            && self.inconclusive.is_none()
            && self.no_outcome.is_none()
            && !self.bound_open()
    }
}

/// Parses and runs one litmus file under `order`.
pub fn check_file(path: &Path, order: &StampOrder, cat: &Catalogue) -> Result<TestReport, InputError> {
    check_file_on(path, order, cat, explicit::Backend::Explicit)
}

/// [`check_file`] on the chosen engine for the witnesses of plain executions.
pub fn check_file_on(
    path: &Path,
    order: &StampOrder,
    cat: &Catalogue,
    backend: explicit::Backend,
) -> Result<TestReport, InputError> {
    let file = path.display().to_string();
    let text = mowgli_diag::read_source(path, &file)?;
    check_text_on(&file, &text, order, cat, true, backend)
}

/// Parses and runs a litmus test given as text.
pub fn check_text(file: &str, text: &str, order: &StampOrder, cat: &Catalogue) -> Result<TestReport, InputError> {
    check_text_with(file, text, order, cat, true)
}

/// [`check_text`], optionally with the naive enumerator (`prune = false`).
pub fn check_text_with(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    prune: bool,
) -> Result<TestReport, InputError> {
    check_text_on(file, text, order, cat, prune, explicit::Backend::Explicit)
}

/// [`check_text_with`] on the chosen engine for the witnesses of plain executions.
pub fn check_text_on(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    prune: bool,
    backend: explicit::Backend,
) -> Result<TestReport, InputError> {
    declarative(file, text, order, cat, prune, backend, DomainLimits::default()).map(|(r, _, _)| r)
}

/// [`check_text`] on a test already parsed (and perhaps edited: [`crate::lang::edit`]);
/// `text` is the source its positions refer to, for diagnostics.
pub fn check_parsed(
    file: &str,
    text: &str,
    ast: &syntax::Litmus,
    order: &StampOrder,
    cat: &Catalogue,
) -> Result<TestReport, InputError> {
    let (backend, limits) = (explicit::Backend::Explicit, DomainLimits::default());
    declarative_parsed(file, text, ast, order, cat, true, backend, limits).map(|(r, _, _)| r)
}

/// Every reachable outcome with one consistent execution that has it.
pub type Witnesses = BTreeMap<explicit::Outcome, Option<explicit::Witness>>;

/// [`check_text_on`], also giving the lowered test and the outcomes with an execution each.
fn declarative(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    prune: bool,
    backend: explicit::Backend,
    limits: DomainLimits,
) -> Result<(TestReport, lower::Lowered, Witnesses), InputError> {
    let ast = syntax::parse(text).map_err(|e| e.in_file(file, text))?;
    declarative_parsed(file, text, &ast, order, cat, prune, backend, limits)
}

/// [`declarative`] on a parsed test whose positions refer to `text`.
#[allow(clippy::too_many_arguments)]
fn declarative_parsed(
    file: &str,
    text: &str,
    ast: &syntax::Litmus,
    order: &StampOrder,
    cat: &Catalogue,
    prune: bool,
    backend: explicit::Backend,
    limits: DomainLimits,
) -> Result<(TestReport, lower::Lowered, Witnesses), InputError> {
    let ie = |line, col, msg: String| InputError::new(syntax::Pos { line, col }, msg).in_file(file, text);
    let mut low = lower::lower_with(ast, order, cat, limits).map_err(|e| e.in_file(file, text))?;
    if let Some(h) = &ast.herd {
        show_herd_locations(&mut low, h);
    }
    let to = order.table("to").ok_or_else(|| ie(1, 1, "the stamp order has no table `to`".into()))?;
    let mut prob = lower::problem(&low, to);
    prob.max_work = limits.max_work;
    prob.prune = prune;
    prob.backend = backend;
    // herd counts executions (its Positive/Negative)
    prob.all_executions = ast.herd.is_some();
    let mut inconclusive = low.domain_cut.clone();
    let res = match explicit::run(&prob, true) {
        Ok(res) => res,
        // a limit, not a malformed input: nothing is known of the outcomes
        Err(EngineError::Unfold(e)) if e.is_limit() => {
            inconclusive = Some(format!("the unfolding was cut: {e}"));
            explicit::Results::default()
        }
        Err(EngineError::Limit(why)) => {
            inconclusive = Some(format!("the search was cut: {why}"));
            explicit::Results::default()
        }
        Err(e) => return Err(ie(1, 1, e.to_string())),
    };
    let mut shown: Vec<BTreeMap<String, String>> = res.outcomes.keys().map(|o| lower::show_outcome(&low, o)).collect();
    shown.sort();
    shown.dedup();
    let expectations = low
        .expects
        .iter()
        .map(|e| {
            let witness = res.outcomes.iter().find(|(o, _)| e.cond.holds(o));
            let sat = witness.is_some();
            let cex = match witness {
                Some((o, Some(w))) if !e.allowed => Some((o, w)),
                _ => None,
            };
            ExpectReport {
                kind: if e.allowed { "allowed" } else { "forbidden" },
                condition: e.text.clone(),
                line: e.pos.line,
                ok: sat == e.allowed,
                // a cut or bounded run decides what it reached (every outcome found is real)
                decided: (inconclusive.is_none() && !res.bound_hit) || sat,
                known: disagreement_note(text, e.pos.line),
                execution: cex.map(|(o, w)| render_execution(&low, o, w)),
                dot: cex.map(|(o, w)| dot_execution(&low, o, w)),
                no_outcome: false,
            }
        })
        .collect();
    let (stats, stuck_msg, bound_hit) = (res.stats.clone(), res.stuck_msg.clone(), res.bound_hit);
    let why_empty = move || no_outcome::declarative_reason(&stats, stuck_msg.as_deref(), bound_hit);
    let mut report = TestReport {
        file: file.to_string(),
        name: low.name.clone(),
        libraries: low.lib_names.clone(),
        outcomes: shown,
        expectations,
        herd: ast.herd.as_ref().map(|h| herdlog::result(h, &low, &res)),
        stats: res.stats,
        bounded: res.bound_hit,
        inconclusive,
        machine: None,
        engine_differences: vec![],
        no_outcome: None,
    };
    report.mark_no_outcome(&low, why_empty);
    Ok((report, low, res.outcomes))
}

/// Parses and runs one litmus file on the chosen engine (`mowgli litmus --engine`).
pub fn check_file_engine(
    path: &Path,
    order: &StampOrder,
    cat: &Catalogue,
    eng: operational::LitmusEngine,
    limits: DomainLimits,
) -> Result<TestReport, InputError> {
    let file = path.display().to_string();
    let text = mowgli_diag::read_source(path, &file)?;
    check_text_engine(&file, &text, order, cat, eng, limits)
}

/// [`check_file_engine`] on a test given as text.
pub fn check_text_engine(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    eng: operational::LitmusEngine,
    limits: DomainLimits,
) -> Result<TestReport, InputError> {
    use operational::{self as op, LitmusEngine};
    // the machine's errors: about the test's libraries (at that line), or a limit
    let ie = |e: mowgli_machine::MachineError| {
        let pos = syntax::parse(text).ok().and_then(|a| a.libraries_pos).unwrap_or(syntax::Pos { line: 1, col: 1 });
        let mut d = InputError::new(pos, e.to_string()).in_file(file, text);
        d.limit = e.is_limit();
        d
    };
    let Some(machine) = eng.machine() else {
        return declarative(file, text, order, cat, true, eng.backend(), limits).map(|(r, _, _)| r);
    };
    if eng == LitmusEngine::Both {
        let start = std::time::Instant::now();
        let (mut r, low, decl) = declarative(file, text, order, cat, true, explicit::Backend::Explicit, limits)?;
        let decl = decl.into_keys().collect();
        let decl_micros = start.elapsed().as_micros();
        if low.libs.iter().any(|l| mowgli_machine::library_pcie(l.as_ref()).is_none()) {
            return Ok(r); // not an RDMA^TSO test: the declarative engine alone
        }
        let (outs, ex, pcie) = op::run_lowered(&low, machine, None, true).map_err(ie)?;
        r.engine_differences = op::differences(&low, &decl, &outs, "the concrete machine");
        let mut st = crate::engines::operational::stats_of(machine, pcie, &ex);
        st.declarative_micros = Some(decl_micros);
        r.machine = Some(st);
        return Ok(r);
    }
    let ast = syntax::parse(text).map_err(|e| e.in_file(file, text))?;
    let mut low = lower::lower_with(&ast, order, cat, limits).map_err(|e| e.in_file(file, text))?;
    if let Some(h) = &ast.herd {
        show_herd_locations(&mut low, h);
    }
    let (outs, ex, pcie) = op::run_lowered(&low, machine, None, true).map_err(ie)?;
    let mut shown: Vec<BTreeMap<String, String>> = outs.iter().map(|o| lower::show_outcome(&low, o)).collect();
    shown.sort();
    shown.dedup();
    let expectations = low
        .expects
        .iter()
        .map(|e| ExpectReport {
            kind: if e.allowed { "allowed" } else { "forbidden" },
            condition: e.text.clone(),
            line: e.pos.line,
            ok: outs.iter().any(|o| e.cond.holds(o)) == e.allowed,
            // a bounded run decides what it reached (every outcome found is real)
            decided: !ex.bounded || outs.iter().any(|o| e.cond.holds(o)),
            known: disagreement_note(text, e.pos.line),
            execution: None,
            dot: None,
            no_outcome: false,
        })
        .collect();
    let stats = Stats { micros: ex.micros, ..Stats::default() };
    let mut report = TestReport {
        file: file.to_string(),
        name: low.name.clone(),
        libraries: low.lib_names.clone(),
        outcomes: shown,
        expectations,
        herd: None,
        stats,
        bounded: ex.bounded,
        inconclusive: None,
        machine: Some(crate::engines::operational::stats_of(machine, pcie, &ex)),
        engine_differences: vec![],
        no_outcome: None,
    };
    report.mark_no_outcome(&low, || no_outcome::machine_reason(ex.bounded));
    Ok(report)
}

/// A herd test's outcomes show the memory locations herd observes (those of its
/// condition and `locations` line), not only those of its expectations.
fn show_herd_locations(low: &mut lower::Lowered, h: &herd::HerdInfo) {
    for l in &h.observed {
        if let herd::HLoc::Global(x) = l {
            if let Some(i) = low.world.locs.iter().position(|li| !li.implicit && li.name == *x) {
                low.shown_locs.push((i, None));
            }
        }
    }
    low.shown_locs.sort();
    low.shown_locs.dedup();
}

pub use crate::analyses::draw::event_label;

/// A consistent execution as text: events per thread with their subevents, then
/// the witness relations between subevents (named `e<event>.<stamp>`).
pub fn render_execution(low: &lower::Lowered, o: &explicit::Outcome, w: &explicit::Witness) -> String {
    let mut s = String::new();
    let out = lower::show_outcome(low, o);
    s += &format!("outcome: {}\n", out.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; "));
    let sub = |i: usize| format!("e{}.{}", w.subevents[i].0, w.subevents[i].1);
    for (t, th) in low.world.threads.iter().enumerate() {
        s += &format!("{} @ node {}:\n", th.name, th.node);
        for (ei, e) in w.events.iter().enumerate().filter(|(_, e)| e.thread == t) {
            let subs: Vec<String> = (0..w.subevents.len()).filter(|&i| w.subevents[i].0 == ei).map(sub).collect();
            s += &format!("  e{ei}: {}   [{}]\n", event_label(low, e), subs.join(", "));
        }
    }
    for (name, pairs) in &w.relations {
        if name == "ppo" || pairs.is_empty() {
            continue;
        }
        let edges: Vec<String> = pairs.iter().map(|&(a, b)| format!("{} -> {}", sub(a), sub(b))).collect();
        s += &format!("{name}: {}\n", edges.join(", "));
    }
    s
}

/// The same execution as a graph (threads as columns, po down, the witness
/// relations across; [`crate::analyses::draw`]).
pub fn execution_graph(
    low: &lower::Lowered,
    title: String,
    o: &explicit::Outcome,
    w: &explicit::Witness,
) -> mowgli_draw::Graph {
    let x = crate::analyses::draw::Exec { events: &w.events, subevents: &w.subevents, relations: &w.relations };
    let mut g = crate::analyses::draw::litmus_execution(low, title, x);
    let out = lower::show_outcome(low, o);
    g.notes.push(format!("outcome: {}", out.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ")));
    g
}

/// The same execution in Graphviz DOT (of [`execution_graph`]).
pub fn dot_execution(low: &lower::Lowered, o: &explicit::Outcome, w: &explicit::Witness) -> String {
    mowgli_draw::dot::dot(&execution_graph(low, low.name.clone(), o, w), "execution")
}

/// Every reachable outcome of a litmus test given as text: all registers (`T:r`)
/// and the final value of every declared location (`x`, or `x@n` per copy of a
/// replicated one). `prune = false` runs the naive enumerator instead.
pub fn outcomes_of_text(
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    prune: bool,
) -> Result<Vec<BTreeMap<String, String>>, InputError> {
    outcomes_of_text_on(text, order, cat, prune, explicit::Backend::Explicit)
}

/// [`outcomes_of_text`] on the chosen engine for the witnesses of plain executions.
pub fn outcomes_of_text_on(
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    prune: bool,
    backend: explicit::Backend,
) -> Result<Vec<BTreeMap<String, String>>, InputError> {
    let ast = syntax::parse(text).map_err(|e| e.in_file("<text>", text))?;
    outcomes_of_on(&ast, text, order, cat, prune, backend)
}

/// [`outcomes_of_text`] of a parsed test (a generated or edited one: its positions,
/// if any, refer to `text`).
pub fn outcomes_of(
    ast: &syntax::Litmus,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    prune: bool,
) -> Result<Vec<BTreeMap<String, String>>, InputError> {
    outcomes_of_on(ast, text, order, cat, prune, explicit::Backend::Explicit)
}

fn outcomes_of_on(
    ast: &syntax::Litmus,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    prune: bool,
    backend: explicit::Backend,
) -> Result<Vec<BTreeMap<String, String>>, InputError> {
    let file = "<text>";
    let ie = |line, col, msg: String| InputError::new(syntax::Pos { line, col }, msg).in_file(file, text);
    let mut low = lower::lower(ast, order, cat).map_err(|e| e.in_file(file, text))?;
    low.shown_locs = low
        .world
        .locs
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.implicit)
        .flat_map(|(i, l)| match l.home {
            Some(_) => vec![(i, None)],
            None => low.world.nodes.iter().map(|&n| (i, Some(n))).collect(),
        })
        .collect();
    let to = order.table("to").ok_or_else(|| ie(1, 1, "the stamp order has no table `to`".into()))?;
    let mut prob = lower::problem(&low, to);
    prob.prune = prune;
    prob.backend = backend;
    let res = explicit::run(&prob, false).map_err(|e| ie(1, 1, e.to_string()))?;
    let mut shown: Vec<BTreeMap<String, String>> = res.outcomes.keys().map(|o| lower::show_outcome(&low, o)).collect();
    shown.sort();
    shown.dedup();
    Ok(shown)
}

/// `--stats` with an operational engine: the machine's states and time over the
/// run, and the declarative engine's time on the same tests (`--engine both`).
pub fn machine_summary(reports: &[TestReport]) -> Option<String> {
    let ms: Vec<&crate::engines::operational::MachineStats> =
        reports.iter().filter_map(|r| r.machine.as_ref()).collect();
    if ms.is_empty() {
        return None;
    }
    let states: usize = ms.iter().map(|m| m.states).sum();
    let op_ms = ms.iter().map(|m| m.micros).sum::<u128>() as f64 / 1000.0;
    let mut s = format!("operational: {} tests on the machine, {states} states, {op_ms:.1} ms", ms.len());
    if ms.iter().all(|m| m.declarative_micros.is_some()) {
        let d = ms.iter().filter_map(|m| m.declarative_micros).sum::<u128>() as f64 / 1000.0;
        s += &format!(
            "; declarative engine on the same tests {d:.1} ms (operational/declarative {:.2}x)",
            op_ms / d.max(1e-3)
        );
    }
    Some(s)
}

/// Human-readable report of one test.
pub fn render(r: &TestReport, stats: bool) -> String {
    if let Some(h) = &r.herd {
        return herdlog::render(r, h, stats);
    }
    let mut s = format!("test {} ({})\n", r.name, r.file);
    s += &format!("  outcomes ({}):\n", r.outcomes.len());
    for o in &r.outcomes {
        let parts: Vec<String> = o.iter().map(|(k, v)| format!("{k}={v}")).collect();
        s += &format!(
            "    {}\n",
            if parts.is_empty() { "(no registers or locations shown)".into() } else { parts.join("; ") }
        );
    }
    for e in &r.expectations {
        s += &format!("  {:5} expect {} {}\n", e.status(), e.kind, e.condition);
        if let (false, Some(x)) = (e.passed(), &e.execution) {
            s += "        counterexample: a consistent execution with this outcome\n";
            for l in x.lines() {
                s += &format!("          {l}\n");
            }
        }
        match (e.status(), &e.known) {
            ("known", Some(n)) => s += &format!("        documented disagreement (# DISAGREES): {n}\n"),
            ("FIXED", Some(_)) => {
                s += "        holds although documented as a disagreement: remove the # DISAGREES note\n"
            }
            _ => {}
        }
    }
    for d in &r.engine_differences {
        s += &format!("  FAIL  engines differ: {d}\n");
    }
    if let Some(why) = &r.no_outcome {
        s += &format!("  EMPTY no outcome: {why}; its expectations are not checked\n");
    }
    if r.bounded {
        s += "  note: a loop reached the unrolling bound (--loop-bound); runs that stay in it longer were not \
              explored, so outcomes may be missing: only what an outcome found decides is decided\n";
    }
    if let Some(why) = &r.inconclusive {
        s += &format!("  INCONCLUSIVE: {why}; outcomes may be missing\n");
    }
    if let (true, Some(m)) = (stats, &r.machine) {
        s += &format!(
            "  machine: {} machine, {} PCIe: {} states, {} transitions, {} deadlocks, {:.3} ms{}\n",
            m.machine,
            if m.pcie { "with" } else { "without" },
            m.states,
            m.transitions,
            m.deadlocks,
            m.micros as f64 / 1000.0,
            m.declarative_micros.map(|d| format!(" (declarative {:.3} ms)", d as f64 / 1000.0)).unwrap_or_default()
        );
    }
    if stats && r.machine.as_ref().is_some_and(|m| m.declarative_micros.is_none()) {
        // the operational engine alone: no declarative statistics to show
    } else if stats {
        let st = &r.stats;
        s += &format!(
            "  stats: {} plain executions, {} candidates explored (naive rf×mo×nfo: {:.0}), {} consistent, {:.3} ms\n",
            st.plain,
            st.candidates,
            st.naive,
            st.consistent,
            st.micros as f64 / 1000.0
        );
    }
    s
}
