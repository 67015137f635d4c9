//! Fence synthesis (`mowgli robust --fix`).

use mowgli_libs::catalogue::Catalogue;
use std::collections::{BTreeMap, HashSet};

use mowgli_core::StampOrder;
use serde::Serialize;

use crate::engines::explicit::{self, Visited};
use crate::lang::{lower, print, syntax, InputError};

use super::*;

/// What a fix must achieve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum FixGoal {
    /// LDRF ∧ fenced (Thm. 5 / 17).
    Syntactic,
    /// Robust by the exact check.
    Exact,
}

/// One inserted instruction (or, for Fig. 5's `GP`, a get and its polls).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Insertion {
    pub thread: String,
    /// Inserted after this source line.
    pub after_line: usize,
    /// The instruction(s), one per line.
    pub instr: String,
    /// Rfence 1, Mfence 2, Poll 3 (§2.1 and §5: a poll blocks the thread, an rfence
    /// only its queue pair); a `GP` block: 4 for the get and 3 per poll.
    pub cost: u32,
    /// A location the insertion declares (the get's private destination of `GP`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decl: Option<String>,
}

/// A smallest set of insertions (by count, then by cost) reaching the goal, and the
/// fixed program (checked: it has executions and reaches the goal).
#[derive(Clone, Debug, Serialize)]
pub struct Fix {
    pub goal: FixGoal,
    pub insertions: Vec<Insertion>,
    pub text: String,
    /// Fixed programs checked during the search.
    pub tried: usize,
}

/// Most fixed programs `fix` checks: the search goes by increasing count of
/// insertions and stops before a count whose sets would exceed what is left.
pub const FIX_BUDGET: usize = 5_000;

/// Most distinct sc cycles one check of the exact goal collects (each a
/// counterexample the fix must break).
const MAX_CYCLES: usize = 1;

/// Most candidate sets of one count [`fix`] enumerates.
pub const FIX_SETS: usize = 1_000_000;

/// How a checked program falls short of the goal: per thread, the span of original
/// positions of a counterexample (an sc cycle, a pair not in gb, with Fig. 5's
/// prescription for the pair), or nothing known.
type Shortfall = Option<Vec<(BTreeMap<String, (usize, usize)>, Option<String>)>>;

/// Checks `ast` (a rendering of the test `text`, its call of line `l` standing at the
/// original position `pos(l)`: [`Candidates::render`]) against `goal`: `Ok(None)` when
/// reached, else what falls short.
fn shortfall(
    s: &Subject,
    ast: &syntax::Litmus,
    pos: &dyn Fn(usize) -> Option<usize>,
    model: Model,
    goal: FixGoal,
) -> Result<Option<Shortfall>, InputError> {
    match goal {
        FixGoal::Exact => {
            let (executions, cycles) = sc_cycles_parsed(s, ast, model, MAX_CYCLES)?;
            if executions == 0 {
                return Ok(Some(None));
            }
            if cycles.is_empty() {
                return Ok(None);
            }
            let mut all = Vec::new();
            for cycle in cycles {
                let mut spans: BTreeMap<String, (usize, usize)> = BTreeMap::new();
                for (t, line) in cycle {
                    let Some(p) = pos(line) else { return Ok(Some(None)) };
                    let s = spans.entry(t).or_insert((p, p));
                    *s = (s.0.min(p), s.1.max(p));
                }
                if !all.iter().any(|(s, _)| *s == spans) {
                    all.push((spans, None));
                }
            }
            Ok(Some(Some(all)))
        }
        FixGoal::Syntactic => {
            let r = check_parsed(s, ast.clone(), Some(model), false)?;
            if r.syntactic.sufficient() {
                // the fixed program must still run (a poll with nothing to complete blocks)
                return Ok(if has_execution(s, ast, model)? { None } else { Some(None) });
            }
            // the violations are listed once each, across the pre-executions, up to the
            // cap (the total counts them per pre-execution): below it, all are there
            if r.syntactic.violations.len() >= MAX_VIOLATIONS {
                return Ok(Some(None));
            }
            let line = |s: &str| s.strip_prefix("line ").and_then(|n| n.parse::<usize>().ok()).and_then(pos);
            let mut all = Vec::new();
            // tree-fenced (Def. 9) is not part of the goal
            for v in r.syntactic.violations.iter().filter(|v| v.condition != "tree-fenced") {
                let (Some(a), Some(b)) = (line(&v.from), v.to.as_deref().and_then(line)) else { return Ok(Some(None)) };
                all.push((BTreeMap::from([(v.thread.clone(), (a.min(b), a.max(b)))]), Some(v.fix.clone())));
            }
            Ok(Some(Some(all)))
        }
    }
}

/// The original position of a call of the unedited test: `2 l` for line `l`.
fn unedited(line: usize) -> Option<usize> {
    Some(2 * line)
}

/// Searches a smallest set of insertions ([`Candidates`]: polls, rfences, mfences,
/// unpolled gets into fresh locations and Fig. 5's `GP` blocks, at every point of a
/// straight-line thread) that makes the test reach `goal`: smallest by count, then by
/// cost, then first in candidate order, as [`fix_exhaustive`] finds it.
///
/// Counterexample-guided: each checked program that falls short yields
/// counterexamples (a shortest sc cycle of each of its non-SC-consistent executions,
/// up to [`MAX_CYCLES`] distinct ones; for the syntactic goal every pair not in gb),
/// and only a set with a candidate that can break it (one inside its span in a
/// thread, or a poll or get before the span's end: [`Candidates::breaking`], other
/// than the candidates of the set it survived) is checked afterwards. A set with a
/// poll that has nothing to complete is not checked ([`Candidates::blocks`]). The sets
/// are visited in [`fix_exhaustive`]'s order, so the first set reaching the goal is
/// the same one as long as no skipped set reaches it (`tests/robust.rs` compares the
/// two, `tests/robust_fix_space.rs` compares the sizes with a brute-force enumeration).
///
/// The learning is a heuristic, so before it says there is no fix, every set of at
/// most [`FIX_COMPLETE`] insertions it skipped is checked ([`confirm`]): "no fix" is
/// then a fact about that space. `None` when a counterexample has no candidate that
/// can break it, when no set within [`FIX_BUDGET`] checked programs (and
/// [`FIX_SETS`] sets per count) reaches the goal, or when a thread has control flow.
pub fn fix(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    model: Model,
    goal: FixGoal,
) -> Result<Option<Fix>, InputError> {
    fix_why(file, text, order, cat, model, goal).map(|r| r.ok())
}

/// The count of insertions up to which a "no fix" of [`fix_why`] has checked every set.
pub const FIX_COMPLETE: usize = 2;

/// The space [`fix_why`] searches, in words (for reports and docs).
pub const FIX_SPACE: &str = "insertions of Poll(n), Rfence(n), Mfence(), Get(f, y) into a fresh location f, \
                             and Get(f, y) with polls up to it, at any point of a straight-line thread";

/// Why [`fix`] found no fix.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub enum NoFix {
    /// A thread has control flow (only straight-line threads are fixed).
    ControlFlow,
    /// The test has no consistent execution.
    NoExecution,
    /// The goal is the sufficient conditions, and the test has calls they do not
    /// cover (remote RMWs, [`super::Syntactic::outside`]): no insertion removes them.
    Uncovered { calls: Vec<String> },
    /// A counterexample no candidate can break: per thread, the original lines it
    /// spans (`T1 4..6`); a thread whose span is one line has no place between its
    /// events for an insertion. Every set of at most `complete` insertions was checked
    /// too ([`confirm`]), and none reaches the goal.
    Unbreakable { tried: usize, spans: String, complete: usize },
    /// Every candidate set was checked, or the sets of the next count exceed
    /// [`FIX_SETS`]; every set of at most `complete` insertions was checked.
    Exhausted { tried: usize, complete: usize },
    /// [`FIX_BUDGET`] fixed programs were checked.
    Budget { tried: usize },
}

/// [`fix`], and why there is none when there is none.
pub fn fix_why(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    model: Model,
    goal: FixGoal,
) -> Result<Result<Fix, NoFix>, InputError> {
    let ast = parsed(file, text)?;
    fix_why_parsed(&Subject::new(file, text, order, cat), &ast, false, model, goal)
}

/// The test `text` parsed.
pub(super) fn parsed(file: &str, text: &str) -> Result<syntax::Litmus, InputError> {
    syntax::parse(text).map_err(|e| e.in_file(file, text))
}

/// [`fix_why`] of the test `ast`, whose positions refer to `text` (for diagnostics);
/// `edited`: `ast` is not `text` as read (the fixed program's text is then printed).
pub(super) fn fix_why_parsed(
    s: &Subject,
    ast: &syntax::Litmus,
    edited: bool,
    model: Model,
    goal: FixGoal,
) -> Result<Result<Fix, NoFix>, InputError> {
    let Subject { file, text, order, cat, .. } = *s;
    let Some(c) = Candidates::of(file, ast, model, cat, order)? else { return Ok(Err(NoFix::ControlFlow)) };
    if goal == FixGoal::Syntactic {
        let calls = check_parsed(s, ast.clone(), Some(model), false)?.syntactic.outside;
        if !calls.is_empty() {
            return Ok(Err(NoFix::Uncovered { calls }));
        }
    }
    // a candidate that blocks its thread in every set is left out ([`Candidates::alive`])
    let alive: Vec<usize> = (0..c.cands.len()).filter(|&i| c.alive(i)).collect();
    // per counterexample found, the candidates that can break it
    // (and the candidates of the set it was found with whose inserted events end its
    // span: a set without all of them may not have it)
    let mut conflicts: Vec<(Vec<bool>, Vec<usize>)> = Vec::new();
    // the spans of a counterexample no candidate can break
    // (the candidates of the set that fell short did not break it, so they are left out)
    let learn = |s: Shortfall, set: &[usize], conflicts: &mut Vec<(Vec<bool>, Vec<usize>)>| -> Option<String> {
        for (spans, fix) in s.iter().flatten() {
            let mut hit = c.breaking(spans, fix.as_deref());
            for &i in set {
                hit[i] = false;
            }
            for (i, h) in hit.iter_mut().enumerate() {
                *h &= alive.binary_search(&i).is_ok();
            }
            // the set's insertions at an end of the span (an odd position: inserted after
            // the line p / 2)
            let ends = |i: usize| {
                let (l, ins) = &c.cands[i];
                spans.get(&ins.thread).is_some_and(|&(lo, hi)| [lo, hi].iter().any(|&p| p % 2 == 1 && p / 2 == *l))
            };
            let involved: Vec<usize> = set.iter().copied().filter(|&i| ends(i)).collect();
            if !hit.iter().any(|&h| h) {
                // a counterexample ending in an inserted event may be of the set's own
                // making: it rules out only the sets with those insertions
                if !involved.is_empty() {
                    conflicts.push((hit, involved));
                    continue;
                }
                let line = |p: usize| p / 2;
                let text: Vec<String> =
                    spans.iter().map(|(t, &(lo, hi))| format!("{t} {}..{}", line(lo), line(hi))).collect();
                return Some(text.join(", "));
            }
            conflicts.push((hit, involved));
        }
        None
    };
    let mut tried = 1;
    let mut checked: HashSet<Vec<usize>> = HashSet::new();
    let mut unbreakable;
    match shortfall(s, ast, &unedited, model, goal)? {
        None => {
            let text = if edited { print::print(ast) } else { text.to_string() };
            return Ok(Ok(Fix { goal, insertions: vec![], text, tried }));
        }
        Some(_) if !has_execution(s, ast, model)? => return Ok(Err(NoFix::NoExecution)),
        Some(s) => unbreakable = learn(s, &[], &mut conflicts),
    }
    'search: for k in 1..=alive.len() {
        if unbreakable.is_some() {
            break;
        }
        let Some(sets) = subsets_of(&c, &alive, k, FIX_SETS) else { break };
        for (_, set) in sets {
            if !conflicts.iter().all(|(h, inv)| set.iter().any(|&i| h[i]) || !inv.iter().all(|i| set.contains(i)))
                || c.blocks(&set)
            {
                continue;
            }
            if tried >= FIX_BUDGET {
                return Ok(Err(NoFix::Budget { tried }));
            }
            tried += 1;
            let (out, at) = c.render(&set);
            match shortfall(s, &out, &|l| at.get(l.wrapping_sub(1)).copied(), model, goal) {
                Ok(None) => {
                    // the learning may have skipped a smaller set: check those of at
                    // most [`FIX_COMPLETE`] insertions first
                    let below = (set.len(), c.cost(&set));
                    let found = Fix { goal, insertions: c.insertions(&set), text: print::print(&out), tried };
                    let confirmed = confirm(s, &c, &checked, model, goal, &mut tried, Some(below))?;
                    return Ok(Ok(match confirmed {
                        Some(Ok(f)) => f,
                        _ => Fix { tried, ..found },
                    }));
                }
                Ok(Some(s)) => {
                    checked.insert(set.clone());
                    unbreakable = learn(s, &set, &mut conflicts);
                    if unbreakable.is_some() {
                        break 'search;
                    }
                }
                Err(_) => {
                    checked.insert(set);
                }
            }
        }
    }
    match confirm(s, &c, &checked, model, goal, &mut tried, None)? {
        Some(Ok(f)) => Ok(Ok(f)),
        Some(Err(())) => Ok(Err(NoFix::Budget { tried })),
        None => Ok(Err(match unbreakable {
            Some(spans) => NoFix::Unbreakable { tried, spans, complete: FIX_COMPLETE },
            None => NoFix::Exhausted { tried, complete: FIX_COMPLETE },
        })),
    }
}

/// Checks every set of at most [`FIX_COMPLETE`] candidates that [`fix_why`] has not
/// checked (only sets that block are left out: they have no execution), by count, then
/// cost, then candidate order, those before `below` (count, cost) only when it is given:
/// the first that reaches the goal (`Some(Ok)`), `Some(Err)` when the sets would take
/// `tried` past twice [`FIX_BUDGET`], `None` when none reaches it.
#[allow(clippy::too_many_arguments)]
fn confirm(
    s: &Subject,
    c: &Candidates,
    checked: &HashSet<Vec<usize>>,
    model: Model,
    goal: FixGoal,
    tried: &mut usize,
    below: Option<(usize, u32)>,
) -> Result<Option<Result<Fix, ()>>, InputError> {
    for k in 1..=FIX_COMPLETE.min(below.map_or(FIX_COMPLETE, |b| b.0)) {
        let Some(sets) = subsets_by_cost(c, k, FIX_SETS) else { return Ok(Some(Err(()))) };
        for (cost, set) in sets {
            if below.is_some_and(|b| (k, cost) >= b) {
                break;
            }
            if checked.contains(&set) || c.blocks(&set) {
                continue;
            }
            if *tried >= 2 * FIX_BUDGET {
                return Ok(Some(Err(())));
            }
            *tried += 1;
            let (out, at) = c.render(&set);
            if let Ok(None) = shortfall(s, &out, &|l| at.get(l.wrapping_sub(1)).copied(), model, goal) {
                let text = print::print(&out);
                return Ok(Some(Ok(Fix { goal, insertions: c.insertions(&set), text, tried: *tried })));
            }
        }
    }
    Ok(None)
}

/// Whether the test has a consistent execution (the search stops at the first).
fn has_execution(s: &Subject, ast: &syntax::Litmus, model: Model) -> Result<bool, InputError> {
    let Subject { file, order, .. } = *s;
    let (_, low) = lowered(s, ast, model)?;
    let to = order.table("to").ok_or_else(|| input_error(file, 1, 1, "the stamp order has no table `to`".into()))?;
    let prob = lower::problem(&low, to);
    let mut any = false;
    explicit::for_each_execution(&prob, &mut |_| {
        any = true;
        false
    })
    .map_err(|e| engine_error(file, e))?;
    Ok(any)
}

/// The test `ast` under `model` ([`on_model`]), and lowered.
fn lowered(s: &Subject, ast: &syntax::Litmus, model: Model) -> Result<(syntax::Litmus, lower::Lowered), InputError> {
    let (_, ast) = on_model(s, ast.clone(), Some(model))?;
    let low = s.lower(&ast).map_err(|e| e.in_file(s.file, s.text))?;
    Ok((ast, low))
}

/// An sc cycle as (thread, source line) per subevent.
pub type ScCycle = Vec<(String, usize)>;

/// The exact check, stopping at the first consistent execution that is not
/// SC-consistent: the consistent executions visited, and a shortest sc cycle of
/// that execution as (thread, source line) per subevent (`None`: robust, when the
/// count is positive).
pub fn first_sc_cycle(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    model: Model,
) -> Result<(u64, Option<ScCycle>), InputError> {
    let (n, mut cycles) = sc_cycles(file, text, order, cat, model, 1)?;
    Ok((n, cycles.pop()))
}

/// The exact check, collecting a shortest sc cycle (as (thread, source line) per
/// subevent) of each consistent execution that is not SC-consistent, distinct ones
/// only, until there are `max`: the consistent executions visited, and the cycles
/// (none: robust, when the count is positive).
pub fn sc_cycles(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    model: Model,
    max: usize,
) -> Result<(u64, Vec<ScCycle>), InputError> {
    sc_cycles_parsed(&Subject::new(file, text, order, cat), &parsed(file, text)?, model, max)
}

/// [`sc_cycles`] of a parsed test whose positions refer to `text`.
fn sc_cycles_parsed(
    s: &Subject,
    ast: &syntax::Litmus,
    model: Model,
    max: usize,
) -> Result<(u64, Vec<ScCycle>), InputError> {
    let Subject { file, order, .. } = *s;
    let (ast, low) = lowered(s, ast, model)?;
    let to = order.table("to").ok_or_else(|| input_error(file, 1, 1, "the stamp order has no table `to`".into()))?;
    let prob = lower::problem(&low, to);
    let (lines, _) = lines_and_places(&ast, &low);
    let mut executions = 0u64;
    let mut cycles: Vec<ScCycle> = Vec::new();
    explicit::for_each_execution(&prob, &mut |v: &Visited| {
        executions += 1;
        let sc = sc_of(v);
        if sc.is_acyclic() {
            return true;
        }
        let steps = shortest_cycle(&sc).unwrap_or_default();
        let cycle: ScCycle = steps
            .iter()
            .map(|&s| {
                let e = v.g.event_of(s);
                let line = lines.get(e.thread).and_then(|l| l.as_ref()).and_then(|l| l.get(e.index)).copied();
                (low.world.threads[e.thread].name.clone(), line.unwrap_or(0))
            })
            .collect();
        if !cycles.contains(&cycle) {
            cycles.push(cycle);
        }
        cycles.len() < max
    })
    .map_err(|e| engine_error(file, e))?;
    Ok((executions, cycles))
}

/// The fix as one line.
pub fn render_fix(f: &Option<Fix>, goal: FixGoal) -> String {
    let what = match goal {
        FixGoal::Syntactic => "LDRF ∧ fenced (Thm. 5)",
        FixGoal::Exact => "robust (exact check)",
    };
    match f {
        None => format!(
            "  fix for {what}: none found among the sets of {FIX_SPACE} checked (at most {FIX_BUDGET} programs)\n"
        ),
        Some(f) if f.insertions.is_empty() => format!("  fix for {what}: nothing to insert\n"),
        Some(f) => format!(
            "  fix for {what}: insert {} (verified; {} programs checked)\n",
            f.insertions
                .iter()
                .map(|i| format!("{} after {} line {}", i.instr, i.thread, i.after_line))
                .collect::<Vec<_>>()
                .join(", "),
            f.tried
        ),
    }
}
