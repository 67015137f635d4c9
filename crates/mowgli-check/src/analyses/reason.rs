//! Why no consistent execution has an outcome: every candidate execution with the
//! outcome (a plain execution with a complete witness — rf, mo, and whatever else
//! the library's witness holds, e.g. RDMA^TSO's nfo — that is well formed), each
//! with the axiom it breaks and a cycle that shows it, from the library's
//! [`mowgli_core::WitnessSearch::explain`]. `mowgli trace` shows it when no run
//! of the machine reaches an outcome.
//!
//! The candidates are enumerated naively (every value of every witness variable),
//! independently of the explicit engine's pruned search; as a check, the outcomes
//! of the candidates the library calls consistent are the engine's outcome set
//! (`tests/trace_reason.rs`).

use std::collections::{BTreeMap, BTreeSet};

use mowgli_core::explain::{Candidate, Violation};
use mowgli_core::program::CallRecord;
use mowgli_core::{Event, FinalValue};

use crate::analyses::draw;
use crate::engines::explicit::{self, EngineError, Outcome, Problem};
use crate::lang::lower;

/// A candidate execution that breaks an axiom.
#[derive(Clone, Debug)]
pub struct Example {
    pub violation: Violation,
    /// The plain execution's events (in thread and program order).
    pub events: Vec<Event>,
    /// Per subevent: its event and its stamp's name.
    pub subevents: Vec<(usize, String)>,
    /// The witness relations of the candidate (rf, mo, …) over subevents.
    pub relations: Vec<(String, Vec<(usize, usize)>)>,
    pub outcome: Outcome,
}

/// The candidate executions with an outcome, and why each is inconsistent.
///
/// Witness variables that decide consistency only ([`mowgli_core::WitnessSearch::existential`],
/// RDMA^TSO's nfo) are chosen freely by the model: a choice of the others (a
/// *group*) is forbidden when every choice of these breaks a condition. Each
/// forbidden group is shown by its candidate that gets furthest through the
/// library's conditions (the latest condition broken, then the shortest cycle):
/// the candidates that break an earlier condition merely chose the existential
/// variables badly.
#[derive(Clone, Debug, Default)]
pub struct Reasons {
    /// Plain executions enumerated.
    pub plain: u64,
    /// Complete witnesses tried.
    pub witnesses: u64,
    /// Candidate executions (well formed) with the outcome.
    pub candidates: u64,
    /// Groups of those (the same witness but for existential variables).
    pub groups: u64,
    /// Of the candidates, consistent ones (then the outcome is allowed).
    pub consistent: u64,
    /// Forbidden groups per the axiom their furthest candidate breaks.
    pub by_axiom: BTreeMap<String, u64>,
    /// Candidates whose library cannot say why ([`mowgli_core::WitnessSearch::explain`] gave `None`).
    pub unexplained: u64,
    /// The enumeration stopped at the budget of witnesses.
    pub truncated: bool,
    /// Up to `keep` forbidden groups' candidates with distinct reasons, shortest cycles first.
    pub examples: Vec<Example>,
    /// Outcomes of all consistent candidates (any outcome), for checking.
    pub consistent_outcomes: BTreeSet<Outcome>,
}

/// What a group has shown so far.
enum Group {
    Consistent,
    /// Its furthest inconsistent candidate so far.
    Forbidden(Box<Example>),
    Unexplained,
}

fn outcome_of(p: &Problem, regs: Vec<Vec<Option<mowgli_core::Value>>>, finals: Vec<FinalValue>) -> Outcome {
    Outcome { regs, finals: crate::engines::explicit::final_memory(&p.world, finals) }
}

/// Every candidate execution of `p` (a program over one library) whose outcome
/// satisfies `want`, classified by its library, up to `budget` complete
/// witnesses; `keep` examples. `None` when the program has more than one library
/// (Λ-consistency's hb across libraries is not explained here).
pub fn reasons(
    p: &Problem,
    want: &dyn Fn(&Outcome) -> bool,
    budget: u64,
    keep: usize,
) -> Result<Option<Reasons>, EngineError> {
    if p.libs.len() != 1 {
        return Ok(None);
    }
    let mut per_thread = Vec::new();
    for t in 0..p.threads.len() {
        let u = explicit::unfold_thread(p, t)?;
        per_thread.push(u.runs.into_iter().filter(|r| r.breaks == 0).collect::<Vec<_>>());
    }
    let mut r = Reasons::default();
    if per_thread.iter().any(|runs| runs.is_empty()) {
        return Ok(Some(r));
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut choice = vec![0usize; per_thread.len()];
    'plain: loop {
        let mut events = Vec::new();
        for (t, runs) in per_thread.iter().enumerate() {
            for (i, c) in runs[choice[t]].calls.iter().enumerate() {
                let CallRecord { lib, method, args, ret, origin } = c.clone();
                events.push(Event { thread: t, index: i, lib, method, args, ret, origin });
            }
        }
        let regs: Vec<_> = per_thread.iter().zip(&choice).map(|(runs, &c)| runs[c].env.clone()).collect();
        r.plain += 1;
        let g = explicit::graph(p, events);
        let mut s = p.libs[0].search(&g, p.to, 0);
        let n = s.num_vars();
        let doms: Vec<usize> = (0..n).map(|v| s.domain(v)).collect();
        let existential: Vec<bool> = (0..n).map(|v| s.existential(v)).collect();
        // this plain execution's groups with the outcome, by their non-existential values
        let mut mine: BTreeMap<Vec<usize>, Group> = BTreeMap::new();
        if doms.iter().all(|&d| d > 0) {
            let mut val = vec![0usize; n];
            for (v, &x) in val.iter().enumerate() {
                s.assign(v, Some(x));
            }
            loop {
                if r.witnesses >= budget {
                    r.truncated = true;
                    groups.extend(mine.into_values());
                    break 'plain;
                }
                r.witnesses += 1;
                let verdict = s.explain();
                if !matches!(verdict, Some(Candidate::IllFormed)) {
                    let mut finals = Vec::new();
                    s.finals(&mut finals);
                    let o = outcome_of(p, regs.clone(), finals);
                    if matches!(verdict, Some(Candidate::Consistent)) {
                        r.consistent_outcomes.insert(o.clone());
                    }
                    if want(&o) {
                        r.candidates += 1;
                        let key: Vec<usize> = (0..n).filter(|&v| !existential[v]).map(|v| val[v]).collect();
                        let slot = mine.entry(key).or_insert(Group::Unexplained);
                        match verdict {
                            Some(Candidate::Consistent) => {
                                r.consistent += 1;
                                *slot = Group::Consistent;
                            }
                            Some(Candidate::Inconsistent(v)) => {
                                let better = match slot {
                                    Group::Consistent => false,
                                    Group::Unexplained => true,
                                    Group::Forbidden(e) => {
                                        (v.rank, std::cmp::Reverse(v.cycle.len()))
                                            > (e.violation.rank, std::cmp::Reverse(e.violation.cycle.len()))
                                    }
                                };
                                if better {
                                    *slot = Group::Forbidden(Box::new(Example {
                                        violation: v,
                                        events: g.events.clone(),
                                        subevents: g.subs.iter().map(|x| (x.event, p.to.stamp_name(x.stamp))).collect(),
                                        relations: s
                                            .relations()
                                            .into_iter()
                                            .map(|(name, rel)| (name, rel.pairs().collect()))
                                            .collect(),
                                        outcome: o,
                                    }));
                                }
                            }
                            _ => r.unexplained += 1,
                        }
                    }
                }
                // the next complete witness (an odometer over the variables)
                let mut v = 0;
                while v < n {
                    val[v] += 1;
                    if val[v] < doms[v] {
                        s.assign(v, Some(val[v]));
                        break;
                    }
                    val[v] = 0;
                    s.assign(v, Some(0));
                    v += 1;
                }
                if v == n {
                    break;
                }
            }
        }
        groups.extend(mine.into_values());
        // the next plain execution
        let mut t = 0;
        loop {
            if t == choice.len() {
                break 'plain;
            }
            choice[t] += 1;
            if choice[t] < per_thread[t].len() {
                break;
            }
            choice[t] = 0;
            t += 1;
        }
    }
    r.groups = groups.len() as u64;
    let mut seen: BTreeSet<(String, Vec<mowgli_core::explain::CycleEdge>)> = BTreeSet::new();
    let mut forbidden: Vec<Example> = Vec::new();
    for grp in groups {
        if let Group::Forbidden(e) = grp {
            *r.by_axiom.entry(e.violation.axiom.clone()).or_default() += 1;
            if seen.insert((e.violation.axiom.clone(), e.violation.cycle.clone())) {
                forbidden.push(*e);
            }
        }
    }
    forbidden.sort_by_key(|e| e.violation.cycle.len());
    forbidden.truncate(keep);
    r.examples = forbidden;
    Ok(Some(r))
}

/// A forbidden candidate as a graph: the execution, the cycle red, the broken
/// axiom in the legend.
pub fn graph(low: &lower::Lowered, title: String, ex: &Example) -> mowgli_draw::Graph {
    let x = draw::Exec { events: &ex.events, subevents: &ex.subevents, relations: &ex.relations };
    let mut g = draw::litmus_execution(low, title, x);
    let cycle: Vec<(usize, String)> = ex.violation.cycle.iter().map(|e| (e.from, e.rel.clone())).collect();
    draw::highlight_cycle(&mut g, &cycle, format!("a cycle breaking {}", ex.violation.axiom));
    g
}

/// Complete witnesses tried at most, for `mowgli trace`.
pub const TRACE_BUDGET: u64 = 1 << 20;

/// The reasons as text for `mowgli trace` (lines indented by two): how many
/// candidates have the outcome, per broken axiom, and the shortest cycles, each
/// with its candidate execution.
pub fn render(low: &lower::Lowered, r: &Reasons, lib: &str) -> String {
    let mut out = String::new();
    let sub = |ex: &Example, i: usize| {
        let (e, stamp) = &ex.subevents[i];
        format!("e{e}.{stamp}")
    };
    out += &format!(
        "  declarative reason ({lib}): {} candidate execution{} (a plain execution and a complete witness; {} plain executions, {} witnesses tried{}) {} this outcome",
        r.candidates,
        if r.candidates == 1 { "" } else { "s" },
        r.plain,
        r.witnesses,
        if r.truncated { ", stopped at the budget" } else { "" },
        if r.candidates == 1 { "has" } else { "have" },
    );
    if r.candidates == 0 {
        out += ": no read can return these values (no well-formed rf/mo gives them)\n";
        return out;
    }
    out += &format!(
        "; {} {} once the witness parts that decide consistency only (RDMA^TSO's nfo) are set aside{}\n",
        r.groups,
        if r.groups == 1 { "remains" } else { "remain" },
        if r.consistent == 0 {
            ", and for each every choice of those breaks a condition; the choice that gets furthest:"
        } else {
            ":"
        },
    );
    for (axiom, n) in &r.by_axiom {
        out += &format!("    {n} break {axiom}\n");
    }
    if r.unexplained > 0 {
        out += &format!("    {} the library cannot explain\n", r.unexplained);
    }
    if r.consistent > 0 {
        out += &format!("    {} consistent (the outcome is allowed)\n", r.consistent);
    }
    for (k, ex) in r.examples.iter().enumerate() {
        let v = &ex.violation;
        out += &format!(
            "  {} cycle ({} edges), breaking {}:\n    ",
            if k == 0 { "the shortest" } else { "another" },
            v.cycle.len(),
            v.axiom
        );
        for e in &v.cycle {
            out += &format!("{} --{}--> ", sub(ex, e.from), e.rel);
        }
        if let Some(first) = v.cycle.first() {
            out += &sub(ex, first.from);
        }
        out += "\n    in the candidate execution:\n";
        for (t, th) in low.world.threads.iter().enumerate() {
            out += &format!("      {} @ node {}:\n", th.name, th.node);
            for (ei, e) in ex.events.iter().enumerate().filter(|(_, e)| e.thread == t) {
                let subs: Vec<String> =
                    (0..ex.subevents.len()).filter(|&i| ex.subevents[i].0 == ei).map(|i| sub(ex, i)).collect();
                out += &format!("        e{ei}: {}   [{}]\n", draw::event_label(low, e), subs.join(", "));
            }
        }
        for (name, pairs) in &ex.relations {
            if pairs.is_empty() {
                continue;
            }
            let edges: Vec<String> = pairs.iter().map(|&(a, b)| format!("{} -> {}", sub(ex, a), sub(ex, b))).collect();
            out += &format!("      {name}: {}\n", edges.join(", "));
        }
    }
    out
}
