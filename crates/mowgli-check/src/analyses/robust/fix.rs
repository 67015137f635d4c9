//! Fence synthesis (`mowgli robust --fix`).

use mowgli_libs::catalogue::Catalogue;
use std::collections::{BTreeMap, BTreeSet};

use mowgli_core::StampOrder;
use serde::Serialize;

use crate::engines::explicit::{self, Visited};
use crate::lang::{lower, syntax, InputError};

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

/// The queue-pair operations of a straight-line thread's source line: (method,
/// arguments) of `[r =] M(a, b)`.
pub(super) fn call_of(line: &str) -> Option<(String, Vec<String>)> {
    let l = line.trim();
    let call = l.split_once(" = ").map(|(_, c)| c).unwrap_or(l);
    let (m, rest) = call.split_once('(')?;
    let args = rest.trim_end().strip_suffix(')')?;
    Some((m.trim().to_string(), args.split(',').map(|a| a.trim().to_string()).filter(|a| !a.is_empty()).collect()))
}

/// The candidate insertions of a test and how to write a chosen set of them into it.
pub(super) struct Candidates {
    src: Vec<String>,
    /// The last `loc` line (0-based), after which `GP`'s fresh locations are declared.
    last_loc: Option<usize>,
    /// (source line the insertion goes after, the insertion)
    pub(super) cands: Vec<(usize, Insertion)>,
    /// The node of each declared location.
    loc_node: BTreeMap<String, i64>,
    /// Per candidate, what it does to the NIC operations its thread has not polled
    /// yet towards a node (see [`Candidates::plan`]).
    effect: Vec<Effect>,
    /// Per candidate (a poll or a `GP` block), the fewest unpolled operations towards
    /// its node that a later poll of the program's own in its thread finds
    /// (`usize::MAX`: none).
    slack: Vec<usize>,
}

/// What a candidate does to the count of a thread's unpolled NIC operations towards
/// a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Effect {
    /// `Rfence(n)`: none.
    Rfence,
    /// `Mfence()`: none.
    Mfence,
    /// `Poll(n)`: one less.
    Poll { n: i64, pending: usize },
    /// A `GP` block towards n: a get, then polls up to it (all of them).
    Gp { n: i64, pending: usize },
}
// (`pending`: the count just before the insertion in the original program)

impl Candidates {
    /// Polls, rfences (under RDMA^TSO also mfences) and Fig. 5's `GP` blocks after
    /// every call but a thread's last; `None` when a thread has control flow.
    pub(super) fn of(file: &str, text: &str, model: Model) -> Result<Option<Candidates>, InputError> {
        let ast = syntax::parse(text).map_err(|e| e.in_file(file, text))?;
        let mut nodes: BTreeSet<i64> = ast.threads.iter().map(|(_, n)| *n).collect();
        nodes.extend(ast.locs.iter().filter_map(|d| d.node));
        let node_of = |x: &str| ast.locs.iter().find(|d| d.name.text == x).and_then(|d| d.node);
        let src: Vec<&str> = text.lines().collect();
        let mut cands: Vec<(usize, Insertion)> = Vec::new();
        let mut effect: Vec<Effect> = Vec::new();
        // the program's own polls: (thread, node, line, unpolled operations before it)
        let mut own_polls: Vec<(String, i64, usize, usize)> = Vec::new();
        for (name, body) in &ast.bodies {
            let Some(lines) = call_lines(body) else { return Ok(None) };
            let Some(&(_, here)) = ast.threads.iter().find(|(n, _)| n.text == name.text) else { continue };
            let indent = "  ";
            // per remote node: NIC operations not yet polled, and the last put's destination
            let mut pending: BTreeMap<i64, usize> = BTreeMap::new();
            let mut put_dst: BTreeMap<i64, String> = BTreeMap::new();
            for (k, &l) in lines.iter().enumerate() {
                if let Some((m, args)) = src.get(l.wrapping_sub(1)).and_then(|s| call_of(s)) {
                    match (m.as_str(), args.as_slice()) {
                        ("Put", [x, ..]) => {
                            if let Some(n) = node_of(x) {
                                *pending.entry(n).or_default() += 1;
                                put_dst.insert(n, x.clone());
                            }
                        }
                        ("Get", [_, y, ..]) => {
                            if let Some(n) = node_of(y) {
                                *pending.entry(n).or_default() += 1;
                            }
                        }
                        ("Poll", [n, ..]) => {
                            if let Ok(n) = n.parse::<i64>() {
                                let c = pending.entry(n).or_default();
                                own_polls.push((name.text.clone(), n, l, *c));
                                *c = c.saturating_sub(1);
                            }
                        }
                        _ => {}
                    }
                }
                if k + 1 == lines.len() {
                    break;
                }
                let ins = |instr: String, cost: u32, decl: Option<String>| {
                    (l, Insertion { thread: name.text.clone(), after_line: l, instr, cost, decl })
                };
                for &n in nodes.iter().filter(|&&n| n != here) {
                    let pend = pending.get(&n).copied().unwrap_or(0);
                    cands.push(ins(format!("{indent}Rfence({n})"), 1, None));
                    effect.push(Effect::Rfence);
                    cands.push(ins(format!("{indent}Poll({n})"), 3, None));
                    effect.push(Effect::Poll { n, pending: pend });
                    // Fig. 5 C1-C6 (GP): a get on the put's queue pair, polled; the get reads
                    // the put's destination (already accessed by this thread, so no
                    // location becomes public) into a fresh location of this node
                    // (the polls written here are those of the block alone; with other
                    // insertions before it, [`Candidates::plan`] counts them again)
                    if let Some(x) = put_dst.get(&n) {
                        let pending = pending.get(&n).copied().unwrap_or(0);
                        let fresh = format!("gp_{}_{l}", name.text);
                        let block = gp_block(&format!("{indent}Get({fresh}, {x})"), n, pending + 1);
                        cands.push(ins(block, gp_cost(pending + 1), Some(format!("loc {fresh} @ {here}"))));
                        effect.push(Effect::Gp { n, pending });
                    }
                }
                if model == Model::Tso {
                    cands.push(ins(format!("{indent}Mfence()"), 2, None));
                    effect.push(Effect::Mfence);
                }
            }
        }
        let last_loc = src.iter().rposition(|l| l.trim_start().starts_with("loc "));
        let loc_node = ast.locs.iter().filter_map(|d| Some((d.name.text.clone(), d.node?))).collect();
        // per candidate, the fewest unpolled operations towards its node that a later
        // poll of the program's own (in its thread) finds in the original program
        let slack = cands
            .iter()
            .zip(&effect)
            .map(|((l, i), e)| match e {
                Effect::Poll { n, .. } | Effect::Gp { n, .. } => own_polls
                    .iter()
                    .filter(|(t, m, pl, _)| *t == i.thread && m == n && pl > l)
                    .map(|p| p.3)
                    .min()
                    .unwrap_or(usize::MAX),
                _ => usize::MAX,
            })
            .collect();
        Ok(Some(Candidates {
            src: src.iter().map(|s| s.to_string()).collect(),
            last_loc,
            cands,
            loc_node,
            effect,
            slack,
        }))
    }

    /// The candidates of `set` (increasing indices, so in the order they are written)
    /// as written together: each one's text and cost. A `GP` block polls up to its get,
    /// counting the insertions before it in its thread: an inserted poll, or an earlier
    /// block, leaves fewer operations to complete (an earlier block completes them
    /// all). Alone, a block is as [`Candidates::of`] wrote it.
    pub(super) fn plan(&self, set: &[usize]) -> Vec<(String, u32)> {
        set.iter()
            .zip(self.gp_polls(set))
            .map(|(&c, polls)| {
                let (_, i) = &self.cands[c];
                match (self.effect[c], polls) {
                    (Effect::Gp { n, .. }, Some(polls)) => {
                        let get = i.instr.lines().next().unwrap_or_default();
                        (gp_block(get, n, polls), gp_cost(polls))
                    }
                    _ => (i.instr.clone(), i.cost),
                }
            })
            .collect()
    }

    /// Per candidate of `set` (increasing indices), the polls of a `GP` block written
    /// with the others (see [`Candidates::plan`]); `None` for the other candidates.
    fn gp_polls(&self, set: &[usize]) -> Vec<Option<usize>> {
        // per (thread, node): unpolled operations now less those of the original
        let mut delta: Vec<((&str, i64), i64)> = Vec::new();
        set.iter()
            .map(|&c| {
                let t = self.cands[c].1.thread.as_str();
                match self.effect[c] {
                    Effect::Poll { n, .. } => {
                        let k = slot(&mut delta, (t, n));
                        delta[k].1 -= 1;
                        None
                    }
                    Effect::Gp { n, pending } => {
                        let k = slot(&mut delta, (t, n));
                        let polls = (pending as i64 + delta[k].1).max(0) as usize + 1;
                        delta[k].1 = -(pending as i64);
                        Some(polls)
                    }
                    _ => None,
                }
            })
            .collect()
    }

    /// The cost of the candidates of `set` written together ([`Candidates::plan`]).
    fn cost(&self, set: &[usize]) -> u32 {
        set.iter().zip(self.gp_polls(set)).map(|(&c, polls)| polls.map(gp_cost).unwrap_or(self.cands[c].1.cost)).sum()
    }

    /// The test with the insertions `set`, and per line of it (0-based) where it stands
    /// in the original: `2 l` for the original line `l`, `2 l + 1` for a line inserted
    /// after it.
    pub(super) fn render(&self, set: &[usize]) -> (String, Vec<usize>) {
        let plan = self.plan(set);
        let mut out = String::new();
        let mut at = Vec::new();
        for (ln, line) in self.src.iter().enumerate() {
            out += line;
            out.push('\n');
            at.push(2 * (ln + 1));
            if Some(ln) == self.last_loc {
                for &c in set {
                    if let Some(d) = &self.cands[c].1.decl {
                        out += d;
                        out.push('\n');
                        at.push(2 * (ln + 1));
                    }
                }
            }
            for (&c, (instr, _)) in set.iter().zip(&plan) {
                if self.cands[c].0 == ln + 1 {
                    for l in instr.lines() {
                        out += l;
                        out.push('\n');
                        at.push(2 * (ln + 1) + 1);
                    }
                }
            }
        }
        (out, at)
    }

    /// The insertions of `set` as reported (a block's lines joined by `; `).
    pub(super) fn insertions(&self, set: &[usize]) -> Vec<Insertion> {
        set.iter()
            .zip(self.plan(set))
            .map(|(&c, (instr, cost))| {
                let mut i = self.cands[c].1.clone();
                i.instr = instr.lines().map(str::trim).collect::<Vec<_>>().join("; ");
                i.cost = cost;
                i
            })
            .collect()
    }

    /// Whether the test with the insertions `set` has a poll with no NIC operation
    /// left to complete (in some thread, more `Poll(n)` than puts and gets towards
    /// n so far): that thread blocks, and the test has no execution.
    pub(super) fn blocks(&self, set: &[usize]) -> bool {
        // per (thread, node): unpolled operations now less those of the original (it
        // only decreases); the set blocks when a poll, inserted or the program's own,
        // finds nothing to complete
        let mut delta: Vec<((&str, i64), i64)> = Vec::new();
        for &c in set {
            let t = self.cands[c].1.thread.as_str();
            let (n, pending) = match self.effect[c] {
                Effect::Poll { n, pending } | Effect::Gp { n, pending } => (n, pending as i64),
                _ => continue,
            };
            let k = slot(&mut delta, (t, n));
            let d = &mut delta[k].1;
            match self.effect[c] {
                Effect::Gp { .. } => *d = -pending,
                _ => {
                    if pending + *d < 1 {
                        return true;
                    }
                    *d -= 1;
                }
            }
            if self.slack[c] != usize::MAX && (self.slack[c] as i64) + *d < 1 {
                return true;
            }
        }
        false
    }

    /// [`Candidates::blocks`] on the written program: in some thread, more `Poll(n)`
    /// than puts and gets towards n so far.
    pub(super) fn blocks_written(&self, set: &[usize]) -> bool {
        let (text, _) = self.render(set);
        let mut ops: BTreeMap<i64, usize> = BTreeMap::new();
        let mut polls: BTreeMap<i64, usize> = BTreeMap::new();
        let node = |x: &str| self.loc_node.get(x).copied();
        for line in text.lines() {
            let l = line.trim();
            if l.ends_with(':') && !l.contains(' ') {
                ops.clear();
                polls.clear();
                continue;
            }
            match call_of(l) {
                Some((m, args)) => match (m.as_str(), args.as_slice()) {
                    ("Put", [x, ..]) | ("Get", [_, x, ..]) => {
                        if let Some(n) = node(x) {
                            *ops.entry(n).or_default() += 1;
                        }
                    }
                    ("Poll", [n]) => {
                        let Ok(n) = n.parse::<i64>() else { continue };
                        let p = polls.entry(n).or_default();
                        *p += 1;
                        if *p > ops.get(&n).copied().unwrap_or(0) {
                            return true;
                        }
                    }
                    _ => {}
                },
                None => continue,
            }
        }
        false
    }

    /// The candidates that can break a counterexample spanning, per thread, the
    /// original positions `lo..=hi` (see [`Candidates::render`]): an insertion inside
    /// the span, or a poll anywhere before its end (a poll shifts which operation the
    /// later polls of its thread complete, Fig. 5 B/C). A pair not in gb whose Fig. 5
    /// prescription is known (`fix`, as in [`Violation::fix`]) leaves out the kinds
    /// that cannot put it in gb: see [`can_break`].
    fn breaking(&self, spans: &BTreeMap<String, (usize, usize)>, fix: Option<&str>) -> Vec<bool> {
        self.cands
            .iter()
            .zip(&self.effect)
            .map(|((l, i), e)| {
                let p = 2 * l + 1;
                let polls = matches!(e, Effect::Poll { .. } | Effect::Gp { .. });
                can_break(*e, fix)
                    && spans.get(&i.thread).is_some_and(|&(lo, hi)| lo < hi && p <= hi && (p >= lo || polls))
            })
            .collect()
    }
}

/// Whether an insertion of kind `e` can put a pair not in gb (gb_tso) into it, given
/// the pair's Fig. 5 prescription `fix` (`None`: not a pair, e.g. an sc cycle).
///
/// An `Mfence` is a CPU event: a NIC event is gb-before a CPU event only through a
/// poll (Fig. 5 columns 1: P or GP), and a CPU event other than a TSO write is
/// oppo-before everything, so an mfence only helps a pair whose first event is a CPU
/// write under TSO (`mfence`, Def. 12). An `Rfence` (nF) is gb-before only NIC events
/// of its queue pair (Fig. 4 row F) and gb-after only CPU events, nlR and nrR of its
/// queue pair (column 6; the rules D6-D8, E6-E7 need it between): it cannot help a
/// `P` pair (the first event is a put's local read, or a get's event followed by
/// another queue pair's or by a nrR after the nlW, E8) nor an `mfence` pair (its
/// second event is a CPU read). It can help a `GP` pair (C6: a put's nrW, an
/// existing get's nrR on the queue pair, then an rfence before the nlR). Polls and
/// `GP` blocks are kept for every pair.
fn can_break(e: Effect, fix: Option<&str>) -> bool {
    !matches!((e, fix), (Effect::Mfence, Some("P" | "GP" | "F")) | (Effect::Rfence, Some("P" | "mfence")))
}

/// The index of `key`'s entry in `delta`, added (0) if missing.
fn slot<'a>(delta: &mut Vec<((&'a str, i64), i64)>, key: (&'a str, i64)) -> usize {
    match delta.iter().position(|(k, _)| *k == key) {
        Some(p) => p,
        None => {
            delta.push((key, 0));
            delta.len() - 1
        }
    }
}

/// Fig. 5's `GP` block: the get, then `polls` polls towards `n`.
fn gp_block(get: &str, n: i64, polls: usize) -> String {
    let indent = &get[..get.len() - get.trim_start().len()];
    let mut block = get.to_string();
    for _ in 0..polls {
        block += &format!("\n{indent}Poll({n})");
    }
    block
}

/// A `GP` block's cost: 4 for the get, 3 per poll.
fn gp_cost(polls: usize) -> u32 {
    4 + 3 * polls as u32
}

/// The sets of `k` of the candidates, cheapest first as written together
/// ([`Candidates::cost`]; then by index), or `None` when there are more than `cap`.
pub(super) fn subsets_by_cost(c: &Candidates, k: usize, cap: usize) -> Option<Vec<(u32, Vec<usize>)>> {
    subsets_of(c, &(0..c.cands.len()).collect::<Vec<_>>(), k, cap)
}

/// [`subsets_by_cost`] over the candidates `of` (increasing indices) only.
fn subsets_of(c: &Candidates, of: &[usize], k: usize, cap: usize) -> Option<Vec<(u32, Vec<usize>)>> {
    let m = of.len();
    if k > m {
        return Some(vec![]);
    }
    let binom = (0..k).fold(1usize, |acc, i| acc.saturating_mul(m - i) / (i + 1));
    if binom > cap {
        return None;
    }
    let mut subsets: Vec<(u32, Vec<usize>)> = Vec::with_capacity(binom);
    let mut idx: Vec<usize> = (0..k).collect();
    loop {
        let set: Vec<usize> = idx.iter().map(|&i| of[i]).collect();
        subsets.push((c.cost(&set), set));
        let Some(i) = (0..k).rev().find(|&i| idx[i] < m - k + i) else { break };
        idx[i] += 1;
        for j in i + 1..k {
            idx[j] = idx[j - 1] + 1;
        }
    }
    subsets.sort();
    Some(subsets)
}

/// Most distinct sc cycles one check of the exact goal collects (each a
/// counterexample the fix must break).
const MAX_CYCLES: usize = 1;

/// Most candidate sets of one count [`fix`] enumerates.
pub const FIX_SETS: usize = 1_000_000;

/// How a checked program falls short of the goal: per thread, the span of original
/// positions of a counterexample (an sc cycle, a pair not in gb, with Fig. 5's
/// prescription for the pair), or nothing known.
type Shortfall = Option<Vec<(BTreeMap<String, (usize, usize)>, Option<String>)>>;

/// Checks `text` (a rendering of `c` whose lines stand at `at`) against `goal`:
/// `Ok(None)` when reached, else what falls short.
fn shortfall(
    file: &str,
    text: &str,
    at: &[usize],
    order: &StampOrder,
    cat: &Catalogue,
    model: Model,
    goal: FixGoal,
) -> Result<Option<Shortfall>, InputError> {
    let pos = |line: usize| at.get(line.wrapping_sub(1)).copied();
    match goal {
        FixGoal::Exact => {
            let (executions, cycles) = sc_cycles(file, text, order, cat, model, MAX_CYCLES)?;
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
            let r = check_text_with(file, text, order, cat, Some(model), false)?;
            if r.syntactic.sufficient() {
                // the fixed program must still run (a poll with nothing to complete blocks)
                return Ok(if has_execution(file, text, order, cat, model)? { None } else { Some(None) });
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

/// Searches a smallest set of polls, rfences (under RDMA^TSO also mfences) and
/// Fig. 5's `GP` blocks (a get on the queue pair of an earlier put, into a fresh
/// private location, and the polls that reach it) between the instructions of
/// straight-line threads that makes the test reach `goal`: smallest by count, then
/// by cost, then first in candidate order, as [`fix_exhaustive`] finds it.
///
/// Counterexample-guided: each checked program that falls short yields
/// counterexamples (a shortest sc cycle of each of its non-SC-consistent executions,
/// up to [`MAX_CYCLES`] distinct ones; for the syntactic goal every pair not in gb),
/// and only a set with a candidate that can break it (one inside
/// its span in a thread, or a poll before the span's end: [`Candidates::breaking`],
/// other than the candidates of the set it survived) is checked afterwards. A set
/// with a poll that has nothing to complete is not checked ([`Candidates::blocks`]). The sets are visited in [`fix_exhaustive`]'s order, so the
/// first set reaching the goal is the same one as long as no skipped set reaches it
/// (`tests/robust.rs` compares the two). `None` when a counterexample has no
/// candidate that can break it, when no set within [`FIX_BUDGET`] checked programs
/// (and [`FIX_SETS`] sets per count) reaches the goal, or when a thread has control
/// flow.
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

/// Why [`fix`] found no fix.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub enum NoFix {
    /// A thread has control flow (only straight-line threads are fixed).
    ControlFlow,
    /// The test has no consistent execution.
    NoExecution,
    /// A counterexample no candidate can break: per thread, the original lines it
    /// spans (`T1 4..6`); a thread whose span is one line has no place between its
    /// events for an insertion.
    Unbreakable { tried: usize, spans: String },
    /// Every candidate set was checked, or the sets of the next count exceed
    /// [`FIX_SETS`].
    Exhausted { tried: usize },
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
    let Some(c) = Candidates::of(file, text, model)? else { return Ok(Err(NoFix::ControlFlow)) };
    let (_, at) = c.render(&[]);
    // a candidate that blocks its thread alone blocks it in every set (an insertion
    // never leaves more operations to complete after it: [`Candidates::blocks`]), so
    // it is left out
    let alive: Vec<usize> = (0..c.cands.len()).filter(|&i| !c.blocks(&[i])).collect();
    // per counterexample found, the candidates that can break it
    let mut conflicts: Vec<Vec<bool>> = Vec::new();
    // the spans of a counterexample no candidate can break
    // (the candidates of the set that fell short did not break it, so they are left out)
    let learn = |s: Shortfall, set: &[usize], conflicts: &mut Vec<Vec<bool>>| -> Option<String> {
        for (spans, fix) in s.iter().flatten() {
            let mut hit = c.breaking(spans, fix.as_deref());
            for &i in set {
                hit[i] = false;
            }
            for (i, h) in hit.iter_mut().enumerate() {
                *h &= alive.binary_search(&i).is_ok();
            }
            if !hit.iter().any(|&h| h) {
                let line = |p: usize| p / 2;
                let text: Vec<String> =
                    spans.iter().map(|(t, &(lo, hi))| format!("{t} {}..{}", line(lo), line(hi))).collect();
                return Some(text.join(", "));
            }
            conflicts.push(hit);
        }
        None
    };
    let mut tried = 1;
    match shortfall(file, text, &at, order, cat, model, goal)? {
        None => return Ok(Ok(Fix { goal, insertions: vec![], text: text.to_string(), tried })),
        Some(_) if !has_execution(file, text, order, cat, model)? => return Ok(Err(NoFix::NoExecution)),
        Some(s) => {
            if let Some(spans) = learn(s, &[], &mut conflicts) {
                return Ok(Err(NoFix::Unbreakable { tried, spans }));
            }
        }
    }
    for k in 1..=alive.len() {
        let Some(sets) = subsets_of(&c, &alive, k, FIX_SETS) else { break };
        for (_, set) in sets {
            if !conflicts.iter().all(|h| set.iter().any(|&i| h[i])) || c.blocks(&set) {
                continue;
            }
            if tried >= FIX_BUDGET {
                return Ok(Err(NoFix::Budget { tried }));
            }
            tried += 1;
            let (out, at) = c.render(&set);
            match shortfall(file, &out, &at, order, cat, model, goal) {
                Ok(None) => return Ok(Ok(Fix { goal, insertions: c.insertions(&set), text: out, tried })),
                Ok(Some(s)) => {
                    if let Some(spans) = learn(s, &set, &mut conflicts) {
                        return Ok(Err(NoFix::Unbreakable { tried, spans }));
                    }
                }
                Err(_) => {}
            }
        }
    }
    Ok(Err(NoFix::Exhausted { tried }))
}

/// Whether the test has a consistent execution (the search stops at the first).
fn has_execution(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    model: Model,
) -> Result<bool, InputError> {
    let (_, low) = lowered(file, text, order, cat, model)?;
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

/// The test parsed and lowered under `model`.
fn lowered(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    model: Model,
) -> Result<(syntax::Litmus, lower::Lowered), InputError> {
    let ast0 = syntax::parse(text).map_err(|e| e.in_file(file, text))?;
    let (model, from) = model_of(file, text, &ast0, Some(model))?;
    let (ast, text) = if from != model.library() {
        let t = crate::analyses::explore::rename_library(text, &from, model.library());
        (syntax::parse(&t).map_err(|e| e.in_file(file, &t))?, t)
    } else {
        (ast0, text.to_string())
    };
    let low = lower::lower(&ast, order, cat).map_err(|e| e.in_file(file, &text))?;
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
    let (ast, low) = lowered(file, text, order, cat, model)?;
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
            "  fix for {what}: none found among the sets of polls/rfences/mfences/get-and-poll blocks checked (at most \
             {FIX_BUDGET} programs)\n"
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
