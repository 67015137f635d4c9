//! The exact check (Def. 5 / 11): every consistent execution SC-consistent; sc
//! cycles, outcomes, the robustness paper's ob, and the theorem facts.

// relations over event indices: index loops read best here
#![allow(clippy::needless_range_loop)]

use mowgli_libs::catalogue::Catalogue;
use std::collections::{BTreeMap, BTreeSet};

use mowgli_core::{BitRel, Event, Stamp, StampOrder, StampTable};
use mowgli_libs::rdma::Kinds;
use serde::Serialize;

use crate::analyses::litmus;
use crate::engines::explicit::{self, Outcome, Visited, Witness};
use crate::lang::{lower, syntax, InputError};

use super::*;

/// A named relation of a visited execution (empty when absent).
pub(super) fn relation(v: &Visited, name: &str) -> BitRel {
    v.relations.iter().find(|(n, _)| n == name).map(|(_, r)| r.clone()).unwrap_or_else(|| BitRel::new(v.g.len()))
}

/// sc = po ∪ rf ∪ rb ∪ mo over the events (subevents) of a visited execution (Def. 5).
/// A remote RMW whose atomic read and atomic write are two subevents (the
/// library's `rmw` relation pairs them: RDMA^TSO_RMW with HCA atomicity) is one
/// step of an SC run, at the read's place in program order, and so one node of
/// sc: the write's rf, rb and mo edges are the read's, its po edges are dropped
/// (the read's stand for them; po is transitive). A write that lands between the
/// two (rb to it from the read, mo from it to the write) then closes a cycle.
/// Without such pairs this is Def. 5's sc itself.
pub fn sc_of(v: &Visited) -> BitRel {
    let rep = atomic_steps(v);
    let merged = rep.iter().enumerate().any(|(s, &r)| s != r);
    let mut sc = v.g.po_with_internal();
    if merged {
        sc = sc.filter(|a, b| rep[a] == a && rep[b] == b);
    }
    for n in ["rf", "rb", "mo"] {
        for (a, b) in relation(v, n).pairs() {
            if rep[a] != rep[b] {
                sc.add(rep[a], rep[b]);
            }
        }
    }
    sc
}

/// The subevent that stands for each subevent in sc ([`sc_of`]): the atomic read
/// for an RMW's atomic write (the library's `rmw` relation), itself otherwise.
pub fn atomic_steps(v: &Visited) -> Vec<usize> {
    let mut rep: Vec<usize> = (0..v.g.len()).collect();
    for (r, w) in relation(v, "rmw").pairs() {
        rep[w] = r;
    }
    rep
}

/// The robustness paper's ob (Def. 4) / ob_tso (Def. 10) of a visited execution,
/// recomputed from its rf, mo, rb, pf and nfo and the model's tables (independently of
/// the library's check, which uses the RDMA paper's formulation).
pub fn ob_of(
    v: &Visited,
    model: Model,
    k: &Kinds,
    ippo_t: &StampTable,
    oppo_t: &StampTable,
    to: &StampTable,
) -> BitRel {
    let g = v.g;
    let n = g.len();
    let conv = |s: Stamp, t: &StampTable| -> Option<Stamp> {
        let name = &to.kinds[s.kind as usize];
        t.kind(name).map(|kind| Stamp { kind, node: s.node })
    };
    let po = g.po_with_internal();
    let table = |t: &StampTable| {
        po.filter(|a, b| match (conv(g.subs[a].stamp, t), conv(g.subs[b].stamp, t)) {
            (Some(x), Some(y)) => t.ordered(x, y),
            _ => false,
        })
    };
    let (ippo, oppo) = (table(ippo_t), table(oppo_t));
    let rf = relation(v, "rf");
    let rb = relation(v, "rb");
    let mo = relation(v, "mo");
    let pf = relation(v, "pf");
    let nfo = relation(v, "nfo");
    let kind = |s: usize| g.subs[s].stamp.kind;
    let thread = |s: usize| g.event_of(s).thread;
    let sthd = BitRel::from_fn(n, |a, b| thread(a) == thread(b));
    let (rf_b, rb_b) = match model {
        Model::Sc => (BitRel::new(n), BitRel::new(n)),
        Model::Tso => (
            rf.intersect(&sthd).restrict(|a| kind(a) == k.cw, |b| kind(b) == k.cr),
            rb.intersect(&sthd).restrict(|a| kind(a) == k.cr, |b| kind(b) == k.cw),
        ),
    };
    let mut ib = ippo;
    ib.union_with(&rf);
    ib.union_with(&pf);
    ib.union_with(&nfo);
    ib.union_with(&rb_b);
    ib.close_transitively();
    let inst = |s: usize| {
        let kd = kind(s);
        !(kd == k.nlw || kd == k.nrw || (model == Model::Tso && kd == k.cw))
    };
    let mut ob = oppo;
    ob.union_with(&rf.minus(&rf_b));
    ob.union_with(&pf.restrict(|a| kind(a) == k.nlw, |_| true));
    ob.union_with(&nfo);
    ob.union_with(&rb);
    ob.union_with(&mo);
    ob.union_with(&ib.restrict(inst, |_| true));
    ob.close_transitively();
    ob
}

/// A shortest cycle of `r` (as the list of its nodes), if any.
pub fn shortest_cycle(r: &BitRel) -> Option<Vec<usize>> {
    let n = r.size();
    let mut best: Option<Vec<usize>> = None;
    for s in 0..n {
        // BFS from s's successors back to s
        let mut prev = vec![usize::MAX; n];
        let mut queue = std::collections::VecDeque::new();
        for b in 0..n {
            if r.contains(s, b) && prev[b] == usize::MAX {
                prev[b] = s;
                queue.push_back(b);
            }
        }
        let mut found = false;
        while let Some(x) = queue.pop_front() {
            if x == s {
                found = true;
                break;
            }
            for b in 0..n {
                if r.contains(x, b) && prev[b] == usize::MAX {
                    prev[b] = x;
                    queue.push_back(b);
                }
            }
        }
        if found {
            let mut cyc = vec![s];
            let mut x = prev[s];
            while x != s {
                cyc.push(x);
                x = prev[x];
            }
            cyc.reverse();
            // cyc: s's predecessor chain reversed ends at ... make it start at s
            let pos = cyc.iter().position(|&y| y == s).unwrap_or(0);
            cyc.rotate_left(pos);
            if best.as_ref().is_none_or(|b| cyc.len() < b.len()) {
                best = Some(cyc);
            }
        }
    }
    best
}

pub(super) fn witness_of(v: &Visited, to: &StampTable) -> Witness {
    let mut events: Vec<Event> = v.g.events.clone();
    for e in &mut events {
        if let Some(c) = v.runs.get(e.thread).and_then(|r| r.calls.get(e.index)) {
            e.ret = c.ret.clone();
            e.args = c.args.clone();
        }
    }
    Witness {
        events,
        abstract_calls: vec![],
        relations: v.relations.iter().map(|(n, r)| (n.clone(), r.pairs().collect())).collect(),
        subevents: v.g.subs.iter().map(|s| (s.event, to.stamp_name(s.stamp))).collect(),
    }
}

// ---------------------------------------------------------------------------
// The check
// ---------------------------------------------------------------------------

/// One edge of an sc cycle.
#[derive(Clone, Debug, Serialize)]
pub struct CycleStep {
    /// `T1 line 4 Get(a, x) aNRR_2`
    pub event: String,
    /// The relation to the next step: po, rf, rb or mo.
    pub edge: String,
}

/// The report of `mowgli robust` on one test.
#[derive(Clone, Debug, Serialize)]
pub struct RobustReport {
    pub file: String,
    pub name: String,
    pub model: Model,
    /// The library the test ran under: the model's in the test's family
    /// (`rdmasc`, `rdmatso`, `rdmasc_rmw`, …).
    pub library: String,
    /// The exact check ran (without it, `robust` is Thm. 5's sufficient verdict).
    pub exact: bool,
    /// Def. 5 / 11: every consistent execution is SC-consistent.
    pub robust: bool,
    /// Every outcome is an SC outcome.
    pub outcome_robust: bool,
    pub executions: u64,
    /// Consistent executions with an sc cycle.
    pub cyclic: u64,
    pub outcomes: Vec<BTreeMap<String, String>>,
    pub sc_outcomes: Vec<BTreeMap<String, String>>,
    /// Outcomes no SC run has.
    pub non_sc_outcomes: Vec<BTreeMap<String, String>>,
    /// A consistent execution that is not SC-consistent (one with a non-SC outcome
    /// when there is one), its sc cycle and its outcome.
    pub cycle: Option<Vec<CycleStep>>,
    pub cycle_outcome: Option<BTreeMap<String, String>>,
    /// The cycle stays in one thread (Thm. 2, first case).
    pub cycle_single_thread: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dot: Option<String>,
    pub syntactic: Syntactic,
    /// A loop reached the unrolling bound: the check covers the bounded program.
    pub bounded: bool,
    /// The unrolling bound of the loops that are no spin or retry loops.
    pub loop_bound: usize,
    pub micros: u128,
}

struct Found {
    outcome: Outcome,
    cycle: Vec<usize>,
    witness: Witness,
    relations: Vec<(String, BitRel)>,
    /// The sc node of each subevent ([`atomic_steps`]).
    steps: Vec<usize>,
}

/// An error of the engine on a test: a limit of the tool (the test is cut,
/// inconclusive) or an error at the test's first line.
pub(super) fn engine_error(file: &str, e: crate::engines::explicit::EngineError) -> InputError {
    let mut d = input_error(file, 1, 1, e.to_string());
    d.limit = e.is_limit();
    d
}

pub(super) fn input_error(file: &str, line: usize, col: usize, msg: String) -> InputError {
    if line == 0 {
        InputError::whole_file(file, msg)
    } else {
        InputError::new(mowgli_diag::Pos { line, col }, msg).in_file(file, "")
    }
}

/// The model a test runs under (`model` if given, else its library's own) and the
/// libraries of its models: the test's one library must declare its SC-local and
/// TSO-local variants ([`Models::of`]).
pub(super) fn model_of(s: &Subject, ast: &syntax::Litmus, model: Option<Model>) -> Result<(Model, Models), InputError> {
    let Subject { file, text, order, cat, .. } = *s;
    let pos = ast.libraries_pos.map(|p| (p.line, p.col)).unwrap_or((1, 1));
    let models = match ast.libraries.as_slice() {
        [one] => Models::of(&one.text, cat, order),
        _ => None,
    };
    let Some(models) = models else {
        let msg = format!(
            "`mowgli robust` checks programs over one library that declares its RDMA^sc and RDMA^TSO variants \
             (`rdmasc`, `rdmatso`); this test lists {}",
            ast.libraries.iter().map(|n| n.text.as_str()).collect::<Vec<_>>().join(", ")
        );
        // the source text places the caret on the `libraries` line
        return Err(InputError::new(mowgli_diag::Pos { line: pos.0, col: pos.1 }, msg).in_file(file, text));
    };
    Ok((model.unwrap_or(models.own), models))
}

/// The test under its model ([`model_of`]): its library renamed to the model's
/// ([`crate::lang::edit::rename_library`]) when that is another.
pub(super) fn on_model(
    s: &Subject,
    mut ast: syntax::Litmus,
    model: Option<Model>,
) -> Result<(Model, syntax::Litmus), InputError> {
    let (model, models) = model_of(s, &ast, model)?;
    if models.from != models.library(model) {
        crate::lang::edit::rename_library(&mut ast, &models.from, models.library(model));
    }
    Ok((model, ast))
}

/// `mowgli robust` on one litmus test given as text.
pub fn check_text(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    model: Option<Model>,
) -> Result<RobustReport, InputError> {
    check_text_with(file, text, order, cat, model, true)
}

/// [`check_text`]; without `exact` only the syntactic conditions are checked (the
/// report's `robust` is then Thm. 5's verdict, sound but not complete).
pub fn check_text_with(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    model: Option<Model>,
    exact: bool,
) -> Result<RobustReport, InputError> {
    let ast = syntax::parse(text).map_err(|e| e.in_file(file, text))?;
    check_impl(&Subject::new(file, text, order, cat), ast, model, exact, None)
}

/// [`check_text_with`] on a parsed test (perhaps edited) whose positions refer to
/// `text` (for diagnostics).
pub(super) fn check_parsed(
    s: &Subject,
    ast: syntax::Litmus,
    model: Option<Model>,
    exact: bool,
) -> Result<RobustReport, InputError> {
    check_impl(s, ast, model, exact, None)
}

/// [`check_text`] and, in the same pass over the consistent executions, the
/// theorems' facts (for the theorem tests: one exploration per program).
pub fn check_with_facts(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    model: Model,
) -> Result<(RobustReport, TheoremFacts), InputError> {
    let mut facts = TheoremFacts::default();
    let ast = syntax::parse(text).map_err(|e| e.in_file(file, text))?;
    let r = check_impl(&Subject::new(file, text, order, cat), ast, Some(model), true, Some(&mut facts))?;
    Ok((r, facts))
}

fn check_impl(
    s: &Subject,
    ast: syntax::Litmus,
    model: Option<Model>,
    exact: bool,
    mut facts: Option<&mut TheoremFacts>,
) -> Result<RobustReport, InputError> {
    let start = std::time::Instant::now();
    let Subject { file, text, order, .. } = *s;
    let (model, ast) = on_model(s, ast, model)?;
    let mut low = s.lower(&ast).map_err(|e| e.in_file(file, text))?;
    low.shown_locs = low.world.locs.iter().enumerate().filter(|(_, l)| !l.implicit).map(|(i, _)| (i, None)).collect();
    let to = order.table("to").ok_or_else(|| input_error(file, 1, 1, "the stamp order has no table `to`".into()))?;
    let (ippo_t, oppo_t) = model
        .tables(order)
        .ok_or_else(|| input_error(file, 1, 1, format!("the stamp order lacks the tables of {}", model.label())))?;
    let (_, oppo_sc) = Model::Sc
        .tables(order)
        .ok_or_else(|| input_error(file, 1, 1, "the stamp order lacks the tables of rdmasc".into()))?;
    let k = Kinds::of(to).map_err(|e| input_error(file, 1, 1, e.to_string()))?;
    let prob = lower::problem(&low, to);
    let (lines, places) = lines_and_places(&ast, &low);
    // the syntactic conditions, on every pre-execution
    let (syntactic, syntactic_bound) =
        syntactic_of(&prob, &k, model, (oppo_sc, oppo_t), &places, &lines).map_err(|e| engine_error(file, e))?;
    // the exact check: every consistent execution
    let mut outcomes: BTreeSet<Outcome> = BTreeSet::new();
    let mut sc_outcomes: BTreeSet<Outcome> = BTreeSet::new();
    let mut found: BTreeMap<Outcome, Found> = BTreeMap::new();
    let (mut executions, mut cyclic) = (0u64, 0u64);
    let mut visit = |v: &Visited| -> bool {
        executions += 1;
        // the engine visits complete executions only, each with its outcome
        let Some(o) = v.outcome.clone() else { return true };
        let sc = sc_of(v);
        if let Some(f) = facts.as_deref_mut() {
            theorem_facts_of(v, &sc, model, &k, (ippo_t, oppo_t, oppo_sc, to), &places, f);
        }
        outcomes.insert(o.clone());
        if sc.is_acyclic() {
            sc_outcomes.insert(o);
        } else {
            cyclic += 1;
            if !found.contains_key(&o) {
                let mut po = v.g.po_with_internal();
                po.close_transitively();
                let cycle = shortest_cycle(&sc).unwrap_or_default();
                let mut relations = v.relations.clone();
                relations.push(("po".into(), po));
                let steps = atomic_steps(v);
                found.insert(o.clone(), Found { outcome: o, cycle, witness: witness_of(v, to), relations, steps });
            }
        }
        true
    };
    if exact {
        explicit::for_each_execution(&prob, &mut visit).map_err(|e| engine_error(file, e))?;
    }
    let unfolded_bound = syntactic_bound
        || (exact && (0..prob.threads.len()).any(|t| explicit::unfold_thread(&prob, t).is_ok_and(|u| u.bound_hit)));
    let non_sc: Vec<&Outcome> = outcomes.iter().filter(|o| !sc_outcomes.contains(o)).collect();
    let pick = non_sc.first().and_then(|o| found.get(*o)).or_else(|| found.values().next());
    let show = |o: &Outcome| lower::show_outcome(&low, o);
    let sufficient = syntactic.sufficient();
    let mut report = RobustReport {
        file: file.to_string(),
        name: low.name.clone(),
        model,
        library: ast.libraries.first().map(|l| l.text.clone()).unwrap_or_default(),
        exact,
        robust: if exact { cyclic == 0 } else { sufficient },
        outcome_robust: if exact { non_sc.is_empty() } else { sufficient },
        executions,
        cyclic,
        outcomes: outcomes.iter().map(show).collect(),
        sc_outcomes: sc_outcomes.iter().map(show).collect(),
        non_sc_outcomes: non_sc.iter().map(|o| show(o)).collect(),
        cycle: None,
        cycle_outcome: None,
        cycle_single_thread: None,
        execution: None,
        dot: None,
        syntactic,
        bounded: unfolded_bound,
        loop_bound: low.loop_bound,
        micros: 0,
    };
    if let Some(f) = pick {
        let w = &f.witness;
        let members = |x: usize| f.steps.iter().enumerate().filter(move |&(_, &r)| r == x).map(|(m, _)| m);
        let label = |s: usize| {
            let e = &w.events[w.subevents[s].0];
            let place = places.at(&PEv { thread: e.thread, call: e.index, ty: Ty::F, loc: None, rnode: None, sub: s });
            let m = low.libs[e.lib].methods()[e.method].name;
            let args: Vec<String> = e.args.iter().map(|a| low.world.show(a)).collect();
            // an RMW's atomic read and write are one node of sc: both stamps
            let stamps: Vec<&str> = members(s).map(|m| w.subevents.get(m).map_or("?", |x| x.1.as_str())).collect();
            format!("{} {place} {m}({}) {}", low.world.threads[e.thread].name, args.join(", "), stamps.join("+"))
        };
        let mut steps = Vec::new();
        let cyc = &f.cycle;
        for (i, &a) in cyc.iter().enumerate() {
            let b = cyc[(i + 1) % cyc.len()];
            let edge = ["rf", "rb", "mo", "po"]
                .iter()
                .find(|n| {
                    f.relations
                        .iter()
                        .any(|(rn, r)| rn == *n && members(a).any(|a2| members(b).any(|b2| r.contains(a2, b2))))
                })
                .map(|n| n.to_string())
                .unwrap_or_else(|| "?".into());
            steps.push(CycleStep { event: label(a), edge });
        }
        let threads: BTreeSet<usize> = cyc.iter().map(|&s| w.events[w.subevents[s].0].thread).collect();
        report.cycle_single_thread = Some(threads.len() == 1);
        let mut text = litmus::render_execution(&low, &f.outcome, w);
        text += "sc cycle:";
        for s in &steps {
            text += &format!(" {} -{}->", s.event, s.edge);
        }
        if let Some(first) = steps.first() {
            text += &format!(" {}\n", first.event);
        }
        let mut graph = litmus::execution_graph(&low, format!("{}: not SC", low.name), &f.outcome, w);
        let cycle: Vec<(usize, String)> = cyc.iter().zip(&steps).map(|(&a, s)| (a, s.edge.clone())).collect();
        crate::analyses::draw::highlight_cycle(&mut graph, &cycle, "the sc cycle (po ∪ rf ∪ mo ∪ rb)".into());
        let dot = mowgli_draw::dot::dot(&graph, "execution");
        report.cycle_outcome = Some(show(&f.outcome));
        report.cycle = Some(steps);
        report.execution = Some(text);
        report.dot = Some(dot);
    }
    report.micros = start.elapsed().as_micros();
    Ok(report)
}

/// What the theorems say about the executions of one program (for the theorem tests).
#[derive(Clone, Debug, Default, Serialize)]
pub struct TheoremFacts {
    pub executions: u64,
    /// Thm. 1 / 13: pairs in gb (gb_tso) of the execution's pre-execution that are not
    /// in its ob (ob_tso) — each a counterexample to the theorem (or to our reading).
    pub gb_not_ob: Vec<String>,
    /// Thm. 3 / 15: executions whose pre-execution is LDRF but whose sc ∩ sthd has a cycle.
    pub ldrf_single_thread_cycles: u64,
    /// Executions whose sc has a cycle.
    pub cyclic: u64,
}

/// Visits every consistent execution of the test and checks Thm. 1/13 (gb ⊆ ob, with
/// the robustness paper's ob recomputed by [`ob_of`]) and Thm. 3/15 (LDRF ⇒ sc ∩ sthd
/// acyclic) on each.
pub fn theorem_facts(
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    model: Model,
) -> Result<TheoremFacts, InputError> {
    check_with_facts("<text>", text, order, cat, model).map(|(_, f)| f)
}

/// Thm. 1/13 and 3/15 on one consistent execution `v` whose sc is `sc`.
fn theorem_facts_of(
    v: &Visited,
    sc: &BitRel,
    model: Model,
    k: &Kinds,
    (ippo_t, oppo_t, oppo_sc, to): (&StampTable, &StampTable, &StampTable, &StampTable),
    places: &Places,
    facts: &mut TheoremFacts,
) {
    facts.executions += 1;
    let pe = PreExec::of_graph(v.g, k);
    let ob = ob_of(v, model, k, ippo_t, oppo_t, to);
    for (t, evs) in pe.threads.iter().enumerate() {
        let gb = pe.gb(t, oppo_t);
        for (i, j) in gb.pairs() {
            if !ob.contains(evs[i].sub, evs[j].sub) && facts.gb_not_ob.len() < 10 {
                facts.gb_not_ob.push(format!(
                    "thread {t}: {} (call {}) gb-before {} (call {}) but not ob-before",
                    evs[i].ty.paper(),
                    evs[i].call,
                    evs[j].ty.paper(),
                    evs[j].call
                ));
            }
        }
    }
    if !sc.is_acyclic() {
        facts.cyclic += 1;
    }
    let syn = conditions(&pe, model, oppo_sc, oppo_t, places);
    if syn.ldrf {
        let g = v.g;
        let sthd = BitRel::from_fn(g.len(), |a, b| g.event_of(a).thread == g.event_of(b).thread);
        if !sc.intersect(&sthd).is_acyclic() {
            facts.ldrf_single_thread_cycles += 1;
        }
    }
}
