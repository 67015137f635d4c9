//! The candidate insertions of `mowgli robust --fix` ([`fix_why`]) and how a chosen set
//! of them is written into the test.
//!
//! The space (docs/robustness.md, "Fence synthesis"): in every straight-line thread, at
//! every program point, one of
//!
//! - `Poll(n)`, `Rfence(n)` towards every node n other than the thread's, `Mfence()`;
//! - `Get(f, y)` into a fresh location f of the thread's node, for every location y of
//!   another node n, not polled (it gives a later poll of the program's own something
//!   to complete);
//! - Fig. 5's `GP` block: the same get, then polls towards n up to it.
//!
//! A set is written in candidate order at one point; every candidate has a second copy
//! (its *twin*, written after the first copies at its point) so that a set of two at one
//! point can be written in either order, or repeat an insertion (`Poll(2); Poll(2)`).
//! Twins are used in sets of at most two only ([`Candidates::canonical`]), so every
//! sequence of at most two insertions is a set, and the larger sets are those of distinct
//! first copies in candidate order.
//!
//! Left out, each by an argument that holds of both goals (the exact check and LDRF ∧
//! fenced), and checked against a brute-force enumeration that has them
//! (`tests/robust_fix_space.rs`):
//!
//! - after a thread's last call: the insertion is po-before none of the program's events,
//!   so it adds no ordering between them (a fence orders only events on both sides, a
//!   poll completes only earlier operations, and a poll's completions of earlier
//!   operations change nothing before it); every execution of the program without it
//!   extends to one with it (a get reads the final value), with the same sc cycle, and
//!   it only adds pairs to LDRF and fenced;
//! - a fence or a poll before a thread's first call: a fence there orders nothing (it is
//!   po-after no event), and a poll there has nothing to complete unless an inserted get
//!   precedes it at that point (`Get; Poll` there is the `GP` block, one insertion);
//! - `Mfence()` under RDMA^sc: `aMF` is a CPU event, and in Fig. 4 (`ippo_sc`,
//!   `oppo_sc`) a CPU event is ordered before every later event already and a NIC
//!   event before no CPU event, so an mfence adds no ordering.

use std::collections::BTreeMap;

use super::*;
use crate::lang::ast::{CallEx, Ex, Stmt};
use crate::lang::syntax::{LocDecl, Pos};
use crate::lang::{edit, print, syntax, InputError};

/// What a candidate inserts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `Rfence(n)`.
    Rfence,
    /// `Mfence()`.
    Mfence,
    /// `Poll(n)`.
    Poll { n: i64 },
    /// `Get(f, y)`, y on node n, not polled.
    Get { n: i64 },
    /// `Get(f, y)`, then polls towards n up to it (Fig. 5 `GP`).
    Gp { n: i64 },
}

/// A call of the program's own, as it counts for polls.
#[derive(Clone, Copy, Debug)]
enum Own {
    /// A put or a get towards a node (a NIC operation a poll can complete).
    Op(i64),
    /// `Poll(n)`.
    Poll(i64),
    Other,
}

/// The candidate insertions of a test and how to write a chosen set of them into it.
pub(super) struct Candidates {
    /// The test the insertions are written into ([`Candidates::render`]).
    ast: syntax::Litmus,
    /// (source line the insertion goes after, the insertion)
    pub(super) cands: Vec<(usize, Insertion)>,
    pub(super) kind: Vec<Kind>,
    /// Per candidate: the call it inserts (the get of a `GP` block), and the fresh
    /// location it declares (name, node).
    call: Vec<CallEx>,
    fresh: Vec<Option<(String, i64)>>,
    /// Per candidate: where it is written, (body, the index of the statement it goes
    /// before) of the test.
    place: Vec<(usize, usize)>,
    /// Per candidate: its thread (index into `own`) and point (it goes after that many
    /// calls of the thread).
    at: Vec<(usize, usize)>,
    /// Per candidate: `Some(i)` when it is the twin of candidate `i`.
    twin_of: Vec<Option<usize>>,
    /// Per straight-line thread: its calls.
    own: Vec<Vec<Own>>,
    /// The node of each declared location.
    loc_node: BTreeMap<String, i64>,
    /// The test library's methods by their effects.
    vocab: Vocab,
    /// Its poll (the name [`gp_block`] writes).
    poll: &'static str,
}

/// The methods a fix inserts (by their declared effects).
struct Inserted {
    get: &'static str,
    rfence: &'static str,
    mfence: &'static str,
}

impl Candidates {
    /// The candidates of the test `ast` (see the module's doc); `None` when a thread
    /// has control flow.
    pub(super) fn of(
        file: &str,
        ast: &syntax::Litmus,
        model: Model,
        cat: &Catalogue,
        order: &StampOrder,
    ) -> Result<Option<Candidates>, InputError> {
        let lib = ast.libraries.first().map(|n| n.text.clone()).unwrap_or_default();
        let words = Vocab::named(&lib, cat, order);
        let missing = |e: String| input_error(file, 1, 1, format!("`mowgli robust --fix` on {lib}: {e}"));
        let m = Inserted {
            get: words.get().map_err(missing)?,
            rfence: words.fence_towards().map_err(missing)?,
            mfence: words.fence().map_err(missing)?,
        };
        let poll = words.poll().map_err(missing)?;
        let loc_node: BTreeMap<String, i64> =
            ast.locs.iter().filter_map(|d| Some((d.name.text.clone(), d.node?))).collect();
        let mut c = Candidates {
            ast: ast.clone(),
            cands: Vec::new(),
            kind: Vec::new(),
            call: Vec::new(),
            fresh: Vec::new(),
            place: Vec::new(),
            at: Vec::new(),
            twin_of: Vec::new(),
            own: Vec::new(),
            loc_node,
            vocab: words,
            poll,
        };
        for b in 0..ast.bodies.len() {
            if !c.thread(b, &m, model)? {
                return Ok(None);
            }
        }
        c.twins();
        Ok(Some(c))
    }

    /// The candidates of body `b` (`false`: it has control flow).
    fn thread(&mut self, b: usize, m: &Inserted, model: Model) -> Result<bool, InputError> {
        let ast = &self.ast;
        let (name, body) = &ast.bodies[b];
        let Some(lines) = call_lines(body) else { return Ok(false) };
        let Some(&(_, here)) = ast.threads.iter().find(|(n, _)| n.text == name.text) else { return Ok(true) };
        let (vocab, poll) = (self.vocab.clone(), self.poll);
        let mut nodes: Vec<i64> = ast.threads.iter().map(|(_, n)| *n).collect();
        nodes.extend(ast.locs.iter().filter_map(|d| d.node));
        nodes.sort();
        nodes.dedup();
        let remote: Vec<(String, i64)> =
            ast.locs.iter().filter_map(|d| Some((d.name.text.clone(), d.node?))).filter(|&(_, n)| n != here).collect();
        // the statement after each call
        let next: Vec<usize> = (0..body.len()).filter(|&i| edit::call_of(&body[i]).is_some()).map(|i| i + 1).collect();
        let own: Vec<Own> = body.iter().filter_map(edit::call_of).map(|c| self.own_call(c)).collect();
        let (thread, label) = (name.text.clone(), name.pos.line);
        let t = self.own.len();
        self.own.push(own);
        let int = |n: i64| Ex::Int(n, Pos::default());
        for p in 0..lines.len() {
            let after = if p == 0 { label } else { lines[p - 1] };
            let place = (b, if p == 0 { 0 } else { next[p - 1] });
            let mut push = |kind: Kind, call: CallEx, cost: u32, fresh: Option<(String, i64)>| {
                let decl = fresh.as_ref().map(|(f, n)| format!("loc {f} @ {n}"));
                let instr = print::call(&call);
                self.cands.push((after, Insertion { thread: thread.clone(), after_line: after, instr, cost, decl }));
                self.kind.push(kind);
                self.call.push(call);
                self.fresh.push(fresh);
                self.place.push(place);
                self.at.push((t, p));
                self.twin_of.push(None);
            };
            for (y, n) in &remote {
                let f = format!("g_{thread}_{after}_{y}");
                push(Kind::Get { n: *n }, vocab.copy_call(m.get, &f, y), 4, Some((f, here)));
                // the polls are written by [`Candidates::plan`]
                let f = format!("gp_{thread}_{after}_{y}");
                push(Kind::Gp { n: *n }, vocab.copy_call(m.get, &f, y), gp_cost(1), Some((f, here)));
            }
            if p == 0 {
                continue;
            }
            for &n in nodes.iter().filter(|&&n| n != here) {
                push(Kind::Rfence, edit::call(None, m.rfence, vec![int(n)]), 1, None);
            }
            if model == Model::Tso {
                push(Kind::Mfence, edit::call(None, m.mfence, vec![]), 2, None);
            }
            for &n in nodes.iter().filter(|&&n| n != here) {
                push(Kind::Poll { n }, edit::call(None, poll, vec![int(n)]), 3, None);
            }
        }
        Ok(true)
    }

    /// The twins, after every first copy (a fresh location `f` becomes `f_2`).
    fn twins(&mut self) {
        for i in 0..self.cands.len() {
            let (l, mut ins) = self.cands[i].clone();
            let mut call = self.call[i].clone();
            let fresh = self.fresh[i].clone().map(|(f, n)| {
                let f2 = format!("{f}_2");
                for a in call.args.iter_mut().filter(|a| matches!(a, Ex::Var(v) if v.text == f)) {
                    *a = edit::arg(&f2);
                }
                (f2, n)
            });
            ins.decl = fresh.as_ref().map(|(f, n)| format!("loc {f} @ {n}"));
            ins.instr = print::call(&call);
            self.cands.push((l, ins));
            self.kind.push(self.kind[i]);
            self.call.push(call);
            self.fresh.push(fresh);
            self.place.push(self.place[i]);
            self.at.push(self.at[i]);
            self.twin_of.push(Some(i));
        }
    }

    /// A call of the program's own.
    fn own_call(&self, c: &CallEx) -> Own {
        let node = |x: &str| self.loc_node.get(x).copied();
        let mut args = Vec::new();
        match self.vocab.op_of(c, &mut args) {
            Op::Copy { remote } => node(remote).map(Own::Op).unwrap_or(Own::Other),
            Op::Complete { node: n } => n.parse().map(Own::Poll).unwrap_or(Own::Other),
            _ => Own::Other,
        }
    }

    /// Whether `set` (increasing indices) is one the search visits: a twin only in a set
    /// of two, after a first copy at its point that is not written before its original
    /// (so `a; b` for `b` after `a` in candidate order is the set of the two first copies,
    /// and `b; a` or `a; a` the set with a twin).
    pub(super) fn canonical(&self, set: &[usize]) -> bool {
        match set {
            [a, b] if self.twin_of[*a].is_none() => {
                self.twin_of[*b].is_none_or(|i| self.at[*a] == self.at[*b] && *a >= i)
            }
            _ => set.iter().all(|&c| self.twin_of[c].is_none()),
        }
    }

    /// Whether candidate `i` is a first copy.
    pub(super) fn first_copy(&self, i: usize) -> bool {
        self.twin_of[i].is_none()
    }

    /// Walks the threads of `set` with its insertions written in: per candidate of the
    /// set, the NIC operations towards its node not yet polled just before it; and
    /// whether a poll (inserted or the program's own) finds none, so that its thread
    /// blocks and the test has no execution.
    fn walk(&self, set: &[usize]) -> (Vec<usize>, bool) {
        let mut before = vec![0usize; set.len()];
        let mut blocked = false;
        let mut threads: Vec<usize> = set.iter().map(|&c| self.at[c].0).collect();
        threads.sort();
        threads.dedup();
        for t in threads {
            // the set's insertions in t, as written: by point, then in set order
            let mut ins: Vec<(usize, usize)> =
                set.iter().enumerate().filter(|(_, &c)| self.at[c].0 == t).map(|(k, &c)| (self.at[c].1, k)).collect();
            ins.sort();
            let mut pending: BTreeMap<i64, usize> = BTreeMap::new();
            let mut next = ins.iter().peekable();
            for p in 0..=self.own[t].len() {
                while let Some(&(_, k)) = next.next_if(|(q, _)| *q == p) {
                    let c = set[k];
                    let (Kind::Poll { n } | Kind::Get { n } | Kind::Gp { n }) = self.kind[c] else { continue };
                    let e = pending.entry(n).or_default();
                    before[k] = *e;
                    match self.kind[c] {
                        Kind::Poll { .. } if *e == 0 => blocked = true,
                        Kind::Poll { .. } => *e -= 1,
                        Kind::Get { .. } => *e += 1,
                        _ => *e = 0,
                    }
                }
                match self.own[t].get(p) {
                    Some(Own::Op(n)) => *pending.entry(*n).or_default() += 1,
                    Some(Own::Poll(n)) => {
                        let e = pending.entry(*n).or_default();
                        blocked |= *e == 0;
                        *e = e.saturating_sub(1);
                    }
                    _ => {}
                }
            }
        }
        (before, blocked)
    }

    /// The candidates of `set` (increasing indices, so in the order they are written)
    /// as written together: each one's calls and cost. A `GP` block polls up to its get,
    /// counting the operations pending before it with the insertions of the set.
    pub(super) fn plan(&self, set: &[usize]) -> Vec<(Vec<CallEx>, u32)> {
        let (before, _) = self.walk(set);
        set.iter()
            .zip(before)
            .map(|(&c, pending)| match self.kind[c] {
                Kind::Gp { n } => (gp_block(&self.call[c], self.poll, n, pending + 1), gp_cost(pending + 1)),
                _ => (vec![self.call[c].clone()], self.cands[c].1.cost),
            })
            .collect()
    }

    /// The cost of the candidates of `set` written together ([`Candidates::plan`]).
    pub(super) fn cost(&self, set: &[usize]) -> u32 {
        self.plan(set).iter().map(|(_, c)| c).sum()
    }

    /// Whether the test with the insertions `set` has a poll with no NIC operation left
    /// to complete: that thread blocks, and the test has no execution.
    pub(super) fn blocks(&self, set: &[usize]) -> bool {
        self.walk(set).1
    }

    /// Whether candidate `i` can be part of a set that does not block: it does not block
    /// alone, or its thread has an unpolled get towards its node among the candidates
    /// (the only insertion that leaves more operations to complete after it).
    pub(super) fn alive(&self, i: usize) -> bool {
        let n = match self.kind[i] {
            Kind::Poll { n } | Kind::Gp { n } => n,
            _ => return !self.blocks(&[i]),
        };
        !self.blocks(&[i])
            || (0..self.cands.len()).any(|g| self.at[g].0 == self.at[i].0 && self.kind[g] == Kind::Get { n })
    }

    /// The test with the insertions `set` (their fresh locations declared after the
    /// test's), and where each call stands in the original: the calls are numbered
    /// 1, 2, … in order (their line), and the number k stands at `at[k - 1]`: `2 l`
    /// for the call of the original line `l`, `2 l + 1` for one inserted after it.
    pub(super) fn render(&self, set: &[usize]) -> (syntax::Litmus, Vec<usize>) {
        let plan = self.plan(set);
        let mut t = self.ast.clone();
        for (f, n) in set.iter().filter_map(|&c| self.fresh[c].as_ref()) {
            t.locs.push(LocDecl { name: edit::name(f), node: Some(*n), init: None, size: None });
        }
        let mut at = Vec::new();
        let mut number = |s: &mut Stmt, code: usize| {
            if let Some(c) = edit::call_of_mut(s) {
                at.push(code);
                c.method.pos.line = at.len();
            }
        };
        for (b, (_, body)) in t.bodies.iter_mut().enumerate() {
            let old = std::mem::take(body);
            for i in 0..=old.len() {
                for (&c, (calls, _)) in set.iter().zip(&plan).filter(|(&c, _)| self.place[c] == (b, i)) {
                    for call in calls {
                        let mut s = Stmt::Call(call.clone());
                        number(&mut s, 2 * self.cands[c].0 + 1);
                        body.push(s);
                    }
                }
                if let Some(s) = old.get(i) {
                    let mut s = s.clone();
                    let line = edit::call_of(&s).map_or(0, |c| c.method.pos.line);
                    number(&mut s, 2 * line);
                    body.push(s);
                }
            }
        }
        (t, at)
    }

    /// The insertions of `set` as reported (a block's calls joined by `; `).
    pub(super) fn insertions(&self, set: &[usize]) -> Vec<Insertion> {
        set.iter()
            .zip(self.plan(set))
            .map(|(&c, (calls, cost))| {
                let mut i = self.cands[c].1.clone();
                i.instr = calls.iter().map(print::call).collect::<Vec<_>>().join("; ");
                i.cost = cost;
                i
            })
            .collect()
    }

    /// [`Candidates::blocks`] on the written program: in some thread, more `Poll(n)`
    /// than puts and gets towards n so far.
    pub(super) fn blocks_written(&self, set: &[usize]) -> bool {
        let (t, _) = self.render(set);
        let node = |x: &str| self.loc_node.get(x).copied();
        let fresh: BTreeMap<&str, i64> =
            set.iter().filter_map(|&c| self.fresh[c].as_ref()).map(|(f, n)| (f.as_str(), *n)).collect();
        for (_, body) in &t.bodies {
            let mut ops: BTreeMap<i64, usize> = BTreeMap::new();
            let mut polls: BTreeMap<i64, usize> = BTreeMap::new();
            for c in body.iter().filter_map(edit::call_of) {
                let mut args = Vec::new();
                match self.vocab.op_of(c, &mut args) {
                    Op::Copy { remote: x } => {
                        if let Some(n) = node(x).or_else(|| fresh.get(x).copied()) {
                            *ops.entry(n).or_default() += 1;
                        }
                    }
                    Op::Complete { node: n } => {
                        let Ok(n) = n.parse::<i64>() else { continue };
                        let p = polls.entry(n).or_default();
                        *p += 1;
                        if *p > ops.get(&n).copied().unwrap_or(0) {
                            return true;
                        }
                    }
                    _ => {}
                }
            }
        }
        false
    }

    /// The candidates that can break a counterexample spanning, per thread, the
    /// original positions `lo..=hi` (see [`Candidates::render`]): an insertion inside
    /// the span, or a poll or a get anywhere before its end (it shifts which operation
    /// the later polls of its thread complete, Fig. 5 B/C). A pair not in gb whose Fig. 5
    /// prescription is known (`fix`, as in [`Violation::fix`]) leaves out the kinds
    /// that cannot put it in gb: see [`can_break`].
    pub(super) fn breaking(&self, spans: &BTreeMap<String, (usize, usize)>, fix: Option<&str>) -> Vec<bool> {
        self.cands
            .iter()
            .zip(&self.kind)
            .map(|((l, i), k)| {
                let p = 2 * l + 1;
                let shifts = matches!(k, Kind::Poll { .. } | Kind::Gp { .. } | Kind::Get { .. });
                can_break(*k, fix)
                    && spans.get(&i.thread).is_some_and(|&(lo, hi)| lo < hi && p <= hi && (p >= lo || shifts))
            })
            .collect()
    }
}

/// Whether an insertion of kind `k` can put a pair not in gb (gb_tso) into it, given
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
/// existing get's nrR on the queue pair, then an rfence before the nlR). Polls, gets
/// and `GP` blocks are kept for every pair.
fn can_break(k: Kind, fix: Option<&str>) -> bool {
    !matches!((k, fix), (Kind::Mfence, Some("P" | "GP" | "F")) | (Kind::Rfence, Some("P" | "mfence")))
}

/// Fig. 5's `GP` block: the get, then `polls` polls (method `poll`) towards `n`.
fn gp_block(get: &CallEx, poll: &str, n: i64, polls: usize) -> Vec<CallEx> {
    let mut block = vec![get.clone()];
    block.extend((0..polls).map(|_| edit::call(None, poll, vec![Ex::Int(n, Pos::default())])));
    block
}

/// A `GP` block's cost: 4 for the get, 3 per poll.
fn gp_cost(polls: usize) -> u32 {
    4 + 3 * polls as u32
}

/// The sets of `k` of the candidates that [`Candidates::canonical`] keeps, cheapest first
/// as written together ([`Candidates::cost`]; then by index), or `None` when there are
/// more than `cap`.
pub(super) fn subsets_by_cost(c: &Candidates, k: usize, cap: usize) -> Option<Vec<(u32, Vec<usize>)>> {
    subsets_of(c, &(0..c.cands.len()).collect::<Vec<_>>(), k, cap)
}

/// [`subsets_by_cost`] over the candidates `of` (increasing indices) only.
pub(super) fn subsets_of(c: &Candidates, of: &[usize], k: usize, cap: usize) -> Option<Vec<(u32, Vec<usize>)>> {
    let first: Vec<usize> = of.iter().copied().filter(|&i| c.first_copy(i)).collect();
    let m = first.len();
    let mut subsets: Vec<(u32, Vec<usize>)> = Vec::new();
    if k <= m {
        let binom = (0..k).fold(1usize, |acc, i| acc.saturating_mul(m - i) / (i + 1));
        if binom > cap {
            return None;
        }
        let mut idx: Vec<usize> = (0..k).collect();
        loop {
            let set: Vec<usize> = idx.iter().map(|&i| first[i]).collect();
            subsets.push((c.cost(&set), set));
            let Some(i) = (0..k).rev().find(|&i| idx[i] < m - k + i) else { break };
            idx[i] += 1;
            for j in i + 1..k {
                idx[j] = idx[j - 1] + 1;
            }
        }
    }
    if k == 2 {
        // a first copy, then a twin at its point (the reverse order, or a repeat)
        for &b in of.iter().filter(|&&i| !c.first_copy(i)) {
            for &a in &first {
                if c.canonical(&[a, b]) {
                    subsets.push((c.cost(&[a, b]), vec![a, b]));
                }
            }
        }
        if subsets.len() > cap {
            return None;
        }
    }
    subsets.sort();
    Some(subsets)
}
