//! Why `mowgli robust --fix` finds no fix made of insertions, and what works instead.
//!
//! [`fix_why`] inserts polls, rfences, mfences, unpolled gets and Fig. 5's `GP` blocks
//! ([`FIX_SPACE`]); it never moves or removes an instruction of the program. When it
//! ends without a fix, no set of at most [`FIX_COMPLETE`] insertions works (every such
//! set was checked), and [`explain`] classifies the case:
//!
//! - [`NoFixReason::PollInTheWay`]: the program polls a queue pair itself. A poll
//!   inserted towards that node before the program's own `Poll(n)` leaves the latter
//!   nothing to complete unless a get is inserted before it too, and the thread blocks
//!   (a program with no execution is no fix). Moving the program's poll up, plus
//!   insertions, is a fix: `explain` finds the smallest such one and checks it like any
//!   fix (it is the fixed program of [`fix_why`] on the moved program).
//! - [`NoFixReason::Search`]: none of the above; the search's own outcome stands
//!   (budget, or every set checked).

use mowgli_libs::catalogue::Catalogue;
use serde::Serialize;

use mowgli_core::StampOrder;

use super::*;
use crate::lang::ast::Stmt;
use crate::lang::{edit, syntax, InputError};

/// Why there is no insertion-only fix, with what works instead when that is known.
#[derive(Clone, Debug, Serialize)]
pub enum NoFixReason {
    /// Moving the program's own polls up (`moved`, lines of the original program), then
    /// inserting `fix.insertions` (lines of the moved program, `fix.text`), reaches the
    /// goal (verified): the fewest moves and insertions, then the fewest insertions, the
    /// cheapest, the shortest moves.
    /// `complete`: every set of at most that many insertions was checked (`None`: the
    /// search stopped at its budget).
    PollInTheWay { moved: Vec<PollMove>, fix: Fix, complete: Option<usize> },
    /// Not classified further: the search's outcome.
    Search(NoFix),
}

/// The program's own `Poll(node)` of `thread`, moved from `line` up to just after
/// `after_line`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PollMove {
    pub thread: String,
    pub node: i64,
    pub line: usize,
    pub after_line: usize,
}

/// The test `ast` with the call of each line `line` of `moves` moved to just after the
/// call of its `after_line` (`after_line < line`; different threads, so the moves do
/// not cross), its calls at the lines they would have in the moved text: the moved one
/// at `after_line + 1`, those it passes one line down.
pub(super) fn moved(ast: &syntax::Litmus, moves: &[(usize, usize)]) -> syntax::Litmus {
    let mut t = ast.clone();
    let line_of = |s: &Stmt| edit::call_of(s).map(|c| c.method.pos.line);
    for &(line, after) in moves {
        for (_, body) in &mut t.bodies {
            let (Some(from), Some(to)) = (
                body.iter().position(|s| line_of(s) == Some(line)),
                body.iter().position(|s| line_of(s) == Some(after)),
            ) else {
                continue;
            };
            let s = body.remove(from);
            body.insert(to + 1, s);
            for c in body.iter_mut().filter_map(edit::call_of_mut) {
                let l = &mut c.method.pos.line;
                *l = if *l == line {
                    after + 1
                } else if after < *l && *l < line {
                    *l + 1
                } else {
                    *l
                };
            }
        }
    }
    t
}

/// Most programs with moved polls [`explain`] tries.
const MAX_MOVES: usize = 64;

/// A poll of the program's own: (thread, line, node, the earlier call lines of the
/// thread).
type OwnPoll = (String, usize, i64, Vec<usize>);

/// The polls of the program's straight-line threads.
fn own_polls(ast: &syntax::Litmus, cat: &Catalogue, order: &StampOrder) -> Vec<OwnPoll> {
    let vocab = Vocab::named(&ast.libraries.first().map(|n| n.text.clone()).unwrap_or_default(), cat, order);
    let mut out = Vec::new();
    for (name, body) in &ast.bodies {
        let Some(lines) = call_lines(body) else { continue };
        for (k, (&l, c)) in lines.iter().zip(body.iter().filter_map(edit::call_of)).enumerate() {
            let mut args = Vec::new();
            if let Op::Complete { node: n } = vocab.op_of(c, &mut args) {
                if let (Ok(n), true) = (n.parse::<i64>(), k > 0) {
                    out.push((name.text.clone(), l, n, lines[..k].to_vec()));
                }
            }
        }
    }
    out
}

/// Why [`fix_why`] found no fix (`search`) of `text` for `goal` under `model`, and what
/// works instead: the smallest verified fix that moves one of the program's polls up
/// (fewest insertions, then cost, then the shortest move), if there is one.
pub fn explain(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    model: Model,
    goal: FixGoal,
    search: NoFix,
) -> Result<NoFixReason, InputError> {
    explain_parsed(&Subject::new(file, text, order, cat), &parsed(file, text)?, model, goal, search)
}

/// [`explain`] of the test `ast` as read from `text`.
pub(super) fn explain_parsed(
    s: &Subject,
    ast: &syntax::Litmus,
    model: Model,
    goal: FixGoal,
    search: NoFix,
) -> Result<NoFixReason, InputError> {
    if matches!(search, NoFix::ControlFlow | NoFix::NoExecution | NoFix::Uncovered { .. }) {
        return Ok(NoFixReason::Search(search));
    }
    let complete = match search {
        NoFix::Unbreakable { complete, .. } | NoFix::Exhausted { complete, .. } => Some(complete),
        _ => None,
    };
    let polls = own_polls(ast, s.cat, s.order);
    // every choice of where each poll goes (its own line, or after an earlier call of
    // its thread), nearest first; the first choice moves nothing
    let mut choices: Vec<Vec<(usize, usize)>> = vec![vec![]];
    for (_, line, _, earlier) in &polls {
        let mut next = Vec::new();
        for c in &choices {
            next.push(c.clone());
            for &after in earlier.iter().rev() {
                let mut c = c.clone();
                c.push((*line, after));
                next.push(c);
            }
        }
        choices = next;
        choices.truncate(MAX_MOVES + 1);
    }
    let mut best: Option<((usize, usize, u32, usize), NoFixReason)> = None;
    for moves in choices.iter().skip(1) {
        let t = moved(ast, moves);
        let Ok(f) = fix_why_parsed(s, &t, true, model, goal)? else { continue };
        let dist: usize = moves.iter().map(|(l, a)| l - a).sum();
        let key =
            (moves.len() + f.insertions.len(), f.insertions.len(), f.insertions.iter().map(|i| i.cost).sum(), dist);
        if best.as_ref().is_none_or(|(k, _)| key < *k) {
            let moved = moves
                .iter()
                .map(|&(line, after_line)| {
                    let (thread, _, node, _) = polls.iter().find(|p| p.1 == line).expect("a poll");
                    PollMove { thread: thread.clone(), node: *node, line, after_line }
                })
                .collect();
            best = Some((key, NoFixReason::PollInTheWay { moved, fix: f, complete }));
        }
    }
    Ok(best.map(|(_, r)| r).unwrap_or(NoFixReason::Search(search)))
}

/// The reason as one line of the report.
pub fn render_no_fix(r: &NoFixReason, goal: FixGoal) -> String {
    let what = match goal {
        FixGoal::Syntactic => "LDRF ∧ fenced (Thm. 5)",
        FixGoal::Exact => "robust (exact check)",
    };
    match r {
        NoFixReason::PollInTheWay { moved, fix, complete } => {
            let ins = if fix.insertions.is_empty() {
                "nothing".to_string()
            } else {
                fix.insertions
                    .iter()
                    .map(|i| format!("{} after {} line {}", i.instr, i.thread, i.after_line))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let own: Vec<String> =
                moved.iter().map(|m| format!("{}'s own Poll({}) at line {}", m.thread, m.node, m.line)).collect();
            let moves: Vec<String> = moved
                .iter()
                .map(|m| format!("{}'s Poll({}) up to after line {}", m.thread, m.node, m.after_line))
                .collect();
            format!(
                "  fix for {what}: {}; a poll inserted before {} leaves it nothing to complete unless a get \
                 precedes it. Instead move {}, then insert {ins} (lines of the moved program; verified)\n",
                match complete {
                    Some(k) => format!("none by at most {k} {FIX_SPACE} (every such set checked)"),
                    None => format!("none found by the search ({FIX_SPACE}) within its budget"),
                },
                own.join(" and "),
                moves.join(" and ")
            )
        }
        NoFixReason::Search(s) => {
            let why = match s {
                NoFix::ControlFlow => "a thread has control flow (only straight-line threads are fixed)".to_string(),
                NoFix::NoExecution => "the test has no consistent execution".to_string(),
                NoFix::Uncovered { calls } => format!(
                    "the sufficient conditions do not cover remote read-modify-writes ({}), and no insertion \
                     removes one; the exact check's fix is the one to use",
                    calls.join(", ")
                ),
                NoFix::Unbreakable { tried, spans, complete } => format!(
                    "no set of at most {complete} {FIX_SPACE} makes it (every such set checked); no candidate \
                     insertion can break a counterexample spanning {spans} ({tried} programs checked), and moving \
                     the program's own polls up does not help either"
                ),
                NoFix::Exhausted { tried, complete } => format!(
                    "no set of at most {complete} {FIX_SPACE} makes it (every such set checked), nor any larger \
                     set the search visited ({tried} programs), and moving polls up does not help"
                ),
                NoFix::Budget { tried } => format!("inconclusive: the budget of {tried} checked programs ran out"),
            };
            format!("  fix for {what}: none: {why}\n")
        }
    }
}
