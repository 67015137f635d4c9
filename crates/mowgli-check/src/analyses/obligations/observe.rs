//! From a refuted obligation to a client (issue 17, issue 30): an obligation of
//! LOCO Def. 3.13 is sufficient for soundness, not necessary, so a refutation only
//! says that the proof method fails on one abstract execution. Whether a *client*
//! can tell the implementation from its specification is a refinement question
//! (Def. 3.10). This module asks it: it takes the abstract program of a refutation
//! (the parsed test) and adds observer calls to it, generated: every method of an
//! observer library, with arguments drawn by parameter role by the client
//! generator ([`Generator::observer_calls`]). The observer libraries are every base
//! library in scope that a client can call ([`observers_of`]): the one the client
//! generator adds for the implemented library, then every library the
//! implementation uses, each kept when its declaration has locations, no barriers
//! or rings, and a method returning a value. The space of one observer library
//! ([`Space`], stated in [`Observation::bound`]):
//!
//! * the abstract program alone (its own returned values may already be an outcome
//!   the specification forbids: a torn read, an O3 refutation);
//! * the program with 1 to [`Space::calls`] observer calls in all: inserted at any
//!   positions of its threads (at least one), and the others, if any, in one new
//!   thread on a node of the program;
//! * the wide part: a new thread of exactly [`Space::wide_thread`] observer calls
//!   and 1 to [`Space::wide_inserted`] calls inserted in the program's threads, only
//!   those in which every observer location used is written in one thread and read
//!   by a call returning a value in another (store buffering is here), searched
//!   when it has at most [`Space::wide_cap`] candidates;
//! * over up to [`Space::locs`] observer locations, each homed (on located memory)
//!   on a node of the program or on one fresh node; values `1..=values` (a compared
//!   value also 0); work identifiers `_` or one of up to [`Space::wids`] per thread,
//!   with the methods that wait for one (by their declaration: a parameter
//!   `Wid { awaited }`): per thread, a call waits for an identifier only when an
//!   earlier observer call of the thread named it since its last wait, every
//!   identifier named is waited for later in the thread (one never waited for
//!   behaves as `_`), and identifiers are numbered in the order of their first use
//!   (with at most 3 observer calls in a thread one identifier covers every use up
//!   to renaming). Their names are a letter from `d` on and the thread's number
//!   (`e1` in the first thread), the letter chosen so that no name of the abstract
//!   program is one of them.
//!
//! Several observer libraries: the union of their spaces, one library per client
//! (the narrow parts level by level across the libraries, then the wide parts). A
//! client calling two observer libraries at once is not in the space: it is
//! cheap and sound to search each on its own (each candidate is still a client
//! `refine` checks), and no shipped implementation has two such libraries in scope
//! except I_BAL's and I_BAL_ALL's (`rdmawait` added by the generator, `sv` used), whose two-library
//! clients are left out; [`Observation::bound`] states the union.
//!
//! The only reduction is by location names (those used are `a`, then `b`, …; an
//! unused one sits on the first node) and by the numbering of work identifiers.
//! Candidates come smallest first (by observer calls; the wide part
//! last), and within a size those whose inserted calls all sit right before or
//! after a call the refutation's reason names (its endpoints) first. Every candidate is a parsed test checked by
//! [`refine_parsed_on`]; the first whose implementation reaches an outcome the
//! specification forbids is the observing client (printed as text only then). The
//! report says how many were tried of how many, and why it stopped.

use std::time::{Duration, Instant};

use mowgli_core::StampOrder;
use serde::Serialize;

use crate::analyses::refine::gen::{failing_text, Bounds, DrawnCall, Generator};
use crate::analyses::refine::{refine_parsed_on, ClientCheck, ClientVerdict};
use crate::lang::ast::{Rhs, Stmt};
use crate::lang::implementation::Implementation;
use crate::lang::lex::Name;
use crate::lang::print;
use crate::lang::syntax::{Litmus, LocDecl, Pos};

/// What [`observe`] found for one refutation.
#[derive(Clone, Debug, Serialize)]
pub struct Observation {
    /// The observing client (a litmus text with the forbidden outcome as an
    /// expectation), if one was found.
    pub client: Option<String>,
    /// Its name, and where its observer calls are.
    pub name: Option<String>,
    pub shape: Option<String>,
    /// Candidate clients run through `refine`.
    pub tried: usize,
    /// Candidate clients of the bound (the whole space of [`Space`]).
    pub candidates: usize,
    /// The bound the candidates cover, in words.
    pub bound: String,
    /// Why no client could be built or tried (e.g. a library that composes with no
    /// observer), or why the search stopped early (time budget).
    pub note: Option<String>,
    /// Candidates `refine` could not run, and the first message.
    pub errors: usize,
    pub first_error: Option<String>,
}

/// The space of candidate clients of one refutation (see the module comment).
#[derive(Clone, Copy, Debug)]
pub struct Space {
    /// Observer calls in all (at most).
    pub calls: usize,
    /// Observer locations (at most).
    pub locs: usize,
    /// Values `1..=values`.
    pub values: usize,
    /// Observer calls may also go to one new thread.
    pub new_thread: bool,
    /// Observer locations may be homed on one fresh node (located memory).
    pub fresh_node: bool,
    /// The wide part: a new thread of exactly `wide_thread` observer calls and 1
    /// to `wide_inserted` calls inserted in the program's threads, every observer
    /// location written in one thread and read by a call returning a value in
    /// another (0: no wide part).
    pub wide_thread: usize,
    pub wide_inserted: usize,
    /// The wide part is searched only when it has at most this many candidates.
    pub wide_cap: usize,
    /// Work identifiers per thread besides `_` (at most), each named only when a
    /// later observer call of the same thread waits for it.
    pub wids: usize,
}

impl Default for Space {
    /// The space `mowgli obligations` searches.
    fn default() -> Space {
        Space {
            calls: 3,
            locs: 2,
            values: 1,
            new_thread: true,
            fresh_node: true,
            wide_thread: 3,
            wide_inserted: 2,
            wide_cap: 200_000,
            wids: 1,
        }
    }
}

/// The observers of the clients built for implementation `imp`, each as a
/// generator whose bounds are `space`'s: the library the client generator adds
/// for its library, then every library the implementation uses, each kept when the
/// generator accepts it as an observer (by its declaration: locations, no barriers
/// or rings) and it has a method returning a value.
fn observers_of(imp: &Implementation, order: &StampOrder, space: &Space) -> Result<Vec<Generator>, String> {
    let default = Bounds::in_catalogue(&imp.implements, &imp.catalogue, 1, 1, 1).observer;
    let mut out: Vec<Generator> = Vec::new();
    for cand in default.iter().chain(imp.uses.iter()) {
        if *cand == imp.implements || out.iter().any(|g| g.observer() == Some(cand.as_str())) {
            continue;
        }
        let mut b = Bounds::in_catalogue(&imp.implements, &imp.catalogue, 1, 1, 1);
        b.observer = Some(cand.clone());
        b.observer_locs = space.locs;
        b.values = space.values;
        b.observer_wids = space.wids;
        let Ok(g) = Generator::in_catalogue(&imp.implements, order, &imp.catalogue, &b) else { continue };
        let homes: Vec<i64> = vec![1; space.locs];
        if g.observer_calls(&[1], 1, &homes).iter().any(|c| c.returns) {
            out.push(g);
        }
    }
    if out.is_empty() {
        return Err(format!(
            "`{}` uses {}, none of which has locations and a method that returns a value (by their declarations; LOCO App. F.4): a client of it cannot add observer calls",
            imp.name,
            imp.uses.join(", ")
        ));
    }
    Ok(out)
}

/// The calls a refutation's reason names: (thread index, call index) pairs, from
/// its `T<k>#<i>` subevent names.
fn endpoints(reason: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let b = reason.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'T' {
            let num = |mut j: usize| -> (Option<usize>, usize) {
                let start = j;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                (reason[start..j].parse().ok(), j)
            };
            let (t, j) = num(i + 1);
            if let (Some(t), Some(b'#')) = (t, b.get(j)) {
                let (c, k) = num(j + 1);
                if let (Some(c), true) = (c, t > 0) {
                    if !out.contains(&(t - 1, c)) {
                        out.push((t - 1, c));
                    }
                    i = k;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

/// One assignment of homes to the observer locations, and the calls drawn for it
/// on each node a thread may stand on.
struct Config {
    homes: Vec<i64>,
    /// The client's nodes (the program's, and the fresh node when a location is there).
    alpha: Vec<(i64, Vec<DrawnCall>)>,
}

impl Config {
    fn at(&self, node: i64) -> &[DrawnCall] {
        self.alpha.iter().find(|(n, _)| *n == node).map_or(&[], |(_, a)| a.as_slice())
    }
}

/// A candidate: a home assignment, the inserted calls (slot, call index of the
/// slot's node), and the new thread's node and calls.
struct Cand<'a> {
    config: usize,
    slots: &'a [usize],
    calls: &'a [usize],
    extra: Option<(i64, &'a [usize])>,
}

impl Cand<'_> {
    fn size(&self) -> usize {
        self.slots.len() + self.extra.map_or(0, |e| e.1.len())
    }
}

/// The space of one refutation's candidates.
struct Search {
    /// The abstract program, its calls of the implemented library qualified.
    prog: Litmus,
    observer: String,
    placed: bool,
    /// The program's nodes.
    nodes: Vec<i64>,
    /// Insertion points: (body, position), and the node of the body's thread.
    slots: Vec<(usize, usize, i64)>,
    /// Per slot: right before or after an endpoint.
    ends: Vec<bool>,
    configs: Vec<Config>,
    /// The names of the observer's work identifiers: per identifier, its letter
    /// (the name in thread body `b` is the letter and `b + 1`; in the new thread,
    /// the letter and the number of bodies + 1), fresh in the abstract program.
    wid_letters: Vec<String>,
    space: Space,
}

/// Every sequence of `sizes.len()` indices below `sizes`; stops when `f` says so.
fn product(sizes: &[usize], f: &mut dyn FnMut(&[usize]) -> bool) -> bool {
    if sizes.contains(&0) {
        return true;
    }
    let mut cur = vec![0; sizes.len()];
    loop {
        if !f(&cur) {
            return false;
        }
        let mut i = sizes.len();
        loop {
            if i == 0 {
                return true;
            }
            i -= 1;
            cur[i] += 1;
            if cur[i] < sizes[i] {
                break;
            }
            cur[i] = 0;
        }
    }
}

/// Every non-decreasing sequence of `m` indices below `n`.
fn multisets(n: usize, m: usize, f: &mut dyn FnMut(&[usize]) -> bool) -> bool {
    fn rec(n: usize, m: usize, from: usize, cur: &mut Vec<usize>, f: &mut dyn FnMut(&[usize]) -> bool) -> bool {
        if cur.len() == m {
            return f(cur);
        }
        for s in from..n {
            cur.push(s);
            if !rec(n, m, s, cur, f) {
                return false;
            }
            cur.pop();
        }
        true
    }
    rec(n, m, 0, &mut Vec::new(), f)
}

fn name(text: String) -> Name {
    Name { text, pos: Pos::default() }
}

impl Search {
    fn new(
        imp: &Implementation,
        order: &StampOrder,
        g: &Generator,
        program: &Litmus,
        reason: &str,
        space: &Space,
    ) -> Result<Search, String> {
        let observer = g.observer().unwrap_or_default().to_string();
        let placed = imp.catalogue.library(&observer, order).map_err(|e| e.to_string())?.memory().replicated;
        let placed = !placed;
        let lmethods: Vec<String> = imp
            .catalogue
            .library(&imp.implements, order)
            .map_err(|e| e.to_string())?
            .methods()
            .iter()
            .map(|m| m.name.to_string())
            .collect();
        let mut prog = program.clone();
        prog.expects.clear();
        prog.description =
            Some(format!("observer calls of `{observer}` added to the abstract program {}", program.name));
        for (_, body) in &mut prog.bodies {
            for st in body.iter_mut() {
                if let Stmt::Call(c) | Stmt::Assign { rhs: Rhs::Call(c), .. } | Stmt::Let { rhs: Rhs::Call(c), .. } = st
                {
                    if c.lib.is_none() && lmethods.contains(&c.method.text) {
                        // qualified, so that it cannot clash with an observer method
                        c.lib = Some(name(imp.implements.clone()));
                    }
                }
            }
        }
        for l in 0..space.locs {
            let n = crate::analyses::refine::gen::observer_location(l);
            if prog.locs.iter().any(|d| d.name.text == n) {
                return Err(format!("the abstract program already has a location `{n}`"));
            }
        }
        let mut nodes: Vec<i64> = prog.threads.iter().map(|t| t.1).collect();
        nodes.sort();
        nodes.dedup();
        let node_of = |t: &str| prog.threads.iter().find(|(n, _)| n.text == t).map(|t| t.1);
        let ends_at = endpoints(reason);
        let mut slots = Vec::new();
        let mut ends = Vec::new();
        for (b, (tname, body)) in prog.bodies.iter().enumerate() {
            let node = node_of(&tname.text).ok_or_else(|| format!("thread `{}` has no node", tname.text))?;
            // T<k> of the reason is the k-th thread
            let k = prog.threads.iter().position(|(n, _)| n.text == tname.text).unwrap_or(usize::MAX);
            for pos in 0..=body.len() {
                slots.push((b, pos, node));
                ends.push(ends_at.is_empty() || ends_at.iter().any(|&(t, c)| t == k && (pos == c || pos == c + 1)));
            }
        }
        // homes: nodes of the program, and one fresh node
        let fresh = nodes.last().copied().unwrap_or(0) + 1;
        let mut dom = if placed { nodes.clone() } else { vec![nodes.first().copied().unwrap_or(1)] };
        if placed && space.fresh_node {
            dom.push(fresh);
        }
        let mut configs = Vec::new();
        product(&vec![dom.len(); space.locs], &mut |h| {
            let homes: Vec<i64> = h.iter().map(|&i| dom[i]).collect();
            let mut all = nodes.clone();
            if homes.contains(&fresh) {
                all.push(fresh);
            }
            let alpha = nodes.iter().map(|&n| (n, g.observer_calls(&all, n, &homes))).collect();
            configs.push(Config { homes, alpha });
            true
        });
        // fresh work identifier names: no identifier of the program is a letter
        // followed by the number of a thread that may use it
        let text = print::print(&prog);
        let words: Vec<&str> = text.split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_')).collect();
        let bodies = prog.bodies.len();
        let mut wid_letters = Vec::new();
        for letter in ('d'..='z').chain('A'..='Z') {
            if wid_letters.len() == space.wids {
                break;
            }
            let clash = (1..=bodies + 1).any(|t| words.contains(&format!("{letter}{t}").as_str()));
            if !clash {
                wid_letters.push(letter.to_string());
            }
        }
        if wid_letters.len() < space.wids {
            return Err("no fresh names for the observer's work identifiers".into());
        }
        Ok(Search { prog, observer, placed, nodes, slots, ends, configs, wid_letters, space: *space })
    }

    /// The candidates of the narrow part with `n` observer calls, in the search
    /// order; stops when `f` says so (then false).
    fn visit_narrow(&self, n: usize, f: &mut dyn FnMut(&Cand) -> bool) -> bool {
        let most_extra = if self.space.new_thread { n - 1 } else { 0 };
        self.visit_level(n, 0..=most_extra, false, f)
    }

    /// The candidates of the wide part, in the search order.
    fn visit_wide(&self, f: &mut dyn FnMut(&Cand) -> bool) -> bool {
        let t = self.space.wide_thread;
        if t == 0 {
            return true;
        }
        for n in t + 1..=t + self.space.wide_inserted {
            if !self.visit_level(n, t..=t, true, f) {
                return false;
            }
        }
        true
    }

    /// The candidates of the wide part (at most `cap + 1` counted).
    fn count_wide(&self, cap: usize) -> usize {
        let t = self.space.wide_thread;
        let mut k = 0;
        if t == 0 {
            return 0;
        }
        for n in t + 1..=t + self.space.wide_inserted {
            self.visit_level(n, t..=t, true, &mut |_| {
                k += 1;
                k <= cap
            });
        }
        k
    }

    /// The candidates of `n` observer calls, `extra` of them in a new thread;
    /// with `talking`, only those in which every observer location used is
    /// written in one thread and read by a call returning a value in another.
    fn visit_level(
        &self,
        n: usize,
        extra: std::ops::RangeInclusive<usize>,
        talking: bool,
        f: &mut dyn FnMut(&Cand) -> bool,
    ) -> bool {
        let any_end = self.ends.iter().any(|e| !e);
        for at_ends in [true, false] {
            if !at_ends && !any_end {
                continue;
            }
            for (ci, cfg) in self.configs.iter().enumerate() {
                for j in extra.clone() {
                    if j >= n {
                        continue;
                    }
                    let extra_nodes: Vec<Option<i64>> =
                        if j == 0 { vec![None] } else { self.nodes.iter().map(|&n| Some(n)).collect() };
                    for en in extra_nodes {
                        let go = multisets(self.slots.len(), n - j, &mut |ss| {
                            if ss.iter().all(|&s| self.ends[s]) != at_ends {
                                return true;
                            }
                            let sizes: Vec<usize> = ss
                                .iter()
                                .map(|&s| cfg.at(self.slots[s].2).len())
                                .chain(en.map(|m| cfg.at(m).len()).into_iter().flat_map(|l| std::iter::repeat_n(l, j)))
                                .collect();
                            product(&sizes, &mut |cs| {
                                let c = Cand {
                                    config: ci,
                                    slots: ss,
                                    calls: &cs[..ss.len()],
                                    extra: en.map(|m| (m, &cs[ss.len()..])),
                                };
                                !self.canonical(&c) || !self.waits_follow(&c) || (talking && !self.talking(&c)) || f(&c)
                            })
                        });
                        if !go {
                            return false;
                        }
                    }
                }
            }
        }
        true
    }

    /// Whether every observer location the candidate uses is written in one
    /// thread and read by a call that returns a value in another.
    fn talking(&self, c: &Cand) -> bool {
        let cfg = &self.configs[c.config];
        // (thread: body index, or usize::MAX for the new thread; call)
        let ins = c.slots.iter().zip(c.calls).map(|(&s, &k)| (self.slots[s].0, &cfg.at(self.slots[s].2)[k]));
        let extra = c.extra.into_iter().flat_map(|(m, ks)| ks.iter().map(move |&k| (usize::MAX, &cfg.at(m)[k])));
        let calls: Vec<(usize, &DrawnCall)> = ins.chain(extra).collect();
        (0..self.space.locs).all(|l| {
            let named = calls.iter().any(|(_, d)| d.locs.contains(&l));
            !named
                || calls.iter().any(|(t, w)| {
                    w.written.contains(&l) && calls.iter().any(|(u, r)| u != t && r.returns && r.locs.contains(&l))
                })
        })
    }

    /// Whether the candidate's work identifiers follow the grammar: per thread, a
    /// call waits for an identifier only when an earlier call of the thread named
    /// it since its last wait, every identifier named is waited for later, and
    /// identifiers are numbered in the order of their first use.
    fn waits_follow(&self, c: &Cand) -> bool {
        let cfg = &self.configs[c.config];
        let mut seqs: Vec<Vec<&DrawnCall>> = vec![Vec::new(); self.prog.bodies.len()];
        for (&s, &k) in c.slots.iter().zip(c.calls) {
            let (b, _, node) = self.slots[s];
            seqs[b].push(&cfg.at(node)[k]);
        }
        if let Some((m, ks)) = c.extra {
            seqs.push(ks.iter().map(|&k| &cfg.at(m)[k]).collect());
        }
        seqs.iter().all(|seq| {
            let (mut pending, mut introduced) = (0u64, 0usize);
            for d in seq {
                for &(_, w, awaited) in &d.wids {
                    if w >= 64 {
                        return false;
                    }
                    if awaited {
                        if pending & (1 << w) == 0 {
                            return false;
                        }
                        pending &= !(1 << w);
                    } else {
                        if w > introduced {
                            return false;
                        }
                        introduced = introduced.max(w + 1);
                        pending |= 1 << w;
                    }
                }
            }
            pending == 0
        })
    }

    /// Drawn call `d` as a call of thread body `b` (the new thread: the number of
    /// bodies), its work identifiers named.
    fn call_in(&self, d: &DrawnCall, b: usize) -> crate::lang::ast::CallEx {
        let mut call = d.call.clone();
        for &(i, w, _) in &d.wids {
            if let (Some(a), Some(letter)) = (call.args.get_mut(i), self.wid_letters.get(w)) {
                *a = crate::lang::ast::Ex::Var(name(format!("{letter}{}", b + 1)));
            }
        }
        call
    }

    /// The calls of a candidate, each with its thread's node.
    fn calls<'a>(&'a self, c: &'a Cand) -> impl Iterator<Item = &'a DrawnCall> + 'a {
        let cfg = &self.configs[c.config];
        let ins = c.slots.iter().zip(c.calls).map(move |(&s, &k)| &cfg.at(self.slots[s].2)[k]);
        let extra = c.extra.into_iter().flat_map(move |(m, ks)| ks.iter().map(move |&k| &cfg.at(m)[k]));
        ins.chain(extra)
    }

    /// One candidate per client up to the order of the observer locations: the
    /// locations used are `a`, then `b`, …, and an unused one is on the first node.
    fn canonical(&self, c: &Cand) -> bool {
        let mut used = vec![false; self.space.locs];
        for call in self.calls(c) {
            for &l in &call.locs {
                if let Some(u) = used.get_mut(l) {
                    *u = true;
                }
            }
        }
        let homes = &self.configs[c.config].homes;
        let first = homes.first().map(|_| self.configs[0].homes.first().copied().unwrap_or(0));
        used.windows(2).all(|w| w[0] || !w[1]) && used.iter().zip(homes).all(|(&u, &h)| u || Some(h) == first)
    }

    /// The candidate as a test named `test`.
    fn build(&self, c: &Cand, test: &str) -> Litmus {
        let cfg = &self.configs[c.config];
        let mut lit = self.prog.clone();
        lit.name = test.to_string();
        let mut used = vec![false; self.space.locs];
        let bodies = lit.bodies.len();
        let mut stmt = |d: &DrawnCall, b: usize, reg: &mut usize| -> Stmt {
            for &l in &d.locs {
                if let Some(u) = used.get_mut(l) {
                    *u = true;
                }
            }
            let call = self.call_in(d, b);
            if d.returns {
                *reg += 1;
                Stmt::Assign { name: name(format!("o{}", *reg - 1)), rhs: Rhs::Call(call) }
            } else {
                Stmt::Call(call)
            }
        };
        for (b, (_, body)) in lit.bodies.iter_mut().enumerate() {
            let old = std::mem::take(body);
            let mut reg = 0;
            for pos in 0..=old.len() {
                for (&s, &k) in c.slots.iter().zip(c.calls) {
                    let (sb, sp, node) = self.slots[s];
                    if (sb, sp) == (b, pos) {
                        body.push(stmt(&cfg.at(node)[k], b, &mut reg));
                    }
                }
                if let Some(st) = old.get(pos) {
                    body.push(st.clone());
                }
            }
        }
        if let Some((m, ks)) = c.extra {
            let mut i = lit.threads.len() + 1;
            while lit.threads.iter().any(|(n, _)| n.text == format!("T{i}")) {
                i += 1;
            }
            let t = name(format!("T{i}"));
            let mut reg = 0;
            let body: Vec<Stmt> = ks.iter().map(|&k| stmt(&cfg.at(m)[k], bodies, &mut reg)).collect();
            lit.threads.push((t.clone(), m));
            lit.bodies.push((t, body));
        }
        for (l, _) in used.iter().enumerate().filter(|(_, u)| **u) {
            lit.locs.push(LocDecl {
                name: name(crate::analyses::refine::gen::observer_location(l)),
                node: self.placed.then_some(cfg.homes[l]),
                init: None,
                size: None,
            });
        }
        if c.size() > 0 && !lit.libraries.iter().any(|l| l.text == self.observer) {
            lit.libraries.push(name(self.observer.clone()));
        }
        lit
    }

    /// Where a candidate's observer calls are, in words.
    fn describe(&self, c: &Cand) -> String {
        let cfg = &self.configs[c.config];
        let mut parts = Vec::new();
        for (&s, &k) in c.slots.iter().zip(c.calls) {
            let (b, pos, node) = self.slots[s];
            let t = &self.prog.bodies[b].0.text;
            parts.push(format!(
                "`{}` in {t} at {pos}",
                print::statement(&Stmt::Call(self.call_in(&cfg.at(node)[k], b)))
            ));
        }
        if let Some((m, ks)) = c.extra {
            let nb = self.prog.bodies.len();
            let calls: Vec<String> =
                ks.iter().map(|&k| print::statement(&Stmt::Call(self.call_in(&cfg.at(m)[k], nb)))).collect();
            parts.push(format!("a new thread on node {m}: `{}`", calls.join("; ")));
        }
        let mut used = vec![false; self.space.locs];
        for call in self.calls(c) {
            for &l in &call.locs {
                if let Some(u) = used.get_mut(l) {
                    *u = true;
                }
            }
        }
        if self.placed {
            for (l, _) in used.iter().enumerate().filter(|(_, u)| **u) {
                parts.push(format!("{} @ {}", crate::analyses::refine::gen::observer_location(l), cfg.homes[l]));
            }
        }
        format!("{} observer call{}: {}", c.size(), if c.size() == 1 { "" } else { "s" }, parts.join(", "))
    }

    /// The narrow part of the space in words (after "with").
    fn bound(&self) -> String {
        let mut methods: Vec<String> = Vec::new();
        let mut waiting: Vec<String> = Vec::new();
        for cfg in &self.configs {
            for (_, a) in &cfg.alpha {
                for d in a {
                    if !methods.contains(&d.call.method.text) {
                        methods.push(d.call.method.text.clone());
                    }
                    if d.wids.iter().any(|w| w.2) && !waiting.contains(&d.call.method.text) {
                        waiting.push(d.call.method.text.clone());
                    }
                }
            }
        }
        let s = &self.space;
        let wids = if waiting.is_empty() || s.wids == 0 {
            "work identifiers `_`".to_string()
        } else {
            format!(
                "work identifiers `_` or up to {} per thread ({}), one named only when a later call of its thread waits for it ({})",
                s.wids,
                self.wid_letters.iter().map(|l| format!("`{l}N`")).collect::<Vec<_>>().join(", "),
                waiting.join(", ")
            )
        };
        format!(
            "1 to {} `{}` calls ({}; arguments by role, values 1..={}, {wids}) \
             at any positions of its threads (at least one there){}, over up to {} observer location{}{}",
            s.calls,
            self.observer,
            methods.join(", "),
            s.values,
            if s.new_thread { " and the others in one new thread on a node of the program" } else { "" },
            s.locs,
            if s.locs == 1 { "" } else { "s" },
            if !self.placed {
                ""
            } else if s.fresh_node {
                " homed on a node of the program or a fresh one"
            } else {
                " homed on a node of the program"
            }
        )
    }
}

/// Tries to observe the refutation whose abstract program is `program` and whose
/// reason is `reason`, within `budget`, over the default [`Space`].
pub fn observe(
    imp: &Implementation,
    order: &StampOrder,
    program: &Litmus,
    reason: &str,
    loop_bound: usize,
    budget: Duration,
) -> Observation {
    observe_in(imp, order, program, reason, loop_bound, budget, &Space::default())
}

/// [`observe`] over the candidates of `space`.
pub fn observe_in(
    imp: &Implementation,
    order: &StampOrder,
    program: &Litmus,
    reason: &str,
    loop_bound: usize,
    budget: Duration,
    space: &Space,
) -> Observation {
    let start = Instant::now();
    let mut obs = Observation {
        client: None,
        name: None,
        shape: None,
        tried: 0,
        candidates: 0,
        bound: String::new(),
        note: None,
        errors: 0,
        first_error: None,
    };
    let gens = match observers_of(imp, order, space) {
        Ok(g) => g,
        Err(e) => {
            obs.note = Some(e);
            return obs;
        }
    };
    // one search per observer library (a client calls one of them)
    let mut searches = Vec::new();
    let mut skipped = Vec::new();
    for g in &gens {
        match Search::new(imp, order, g, program, reason, space) {
            Ok(s) => searches.push(s),
            Err(e) => skipped.push(format!("`{}`: {e}", g.observer().unwrap_or_default())),
        }
    }
    if searches.is_empty() {
        obs.note = Some(skipped.join("; "));
        return obs;
    }
    let mut total = 1;
    let mut parts = Vec::new();
    let mut wide = Vec::new();
    for search in &searches {
        let mut part = search.bound();
        for n in 1..=space.calls {
            search.visit_narrow(n, &mut |_| {
                total += 1;
                true
            });
        }
        let wide_n = search.count_wide(space.wide_cap);
        let w = wide_n <= space.wide_cap;
        if w {
            total += wide_n;
        }
        wide.push(w);
        if space.wide_thread > 0 {
            part += &if w {
                format!(
                    "; and with a new thread of {} such calls on a node of the program and 1 to {} inserted in its threads, \
                     every observer location written in one thread and read by a call returning a value in another ({wide_n} candidates)",
                    space.wide_thread, space.wide_inserted
                )
            } else {
                format!(
                    "; not its wide part (a new thread of {} calls and 1 to {} inserted): more than {} candidates",
                    space.wide_thread, space.wide_inserted, space.wide_cap
                )
            };
        }
        parts.push(part);
    }
    obs.candidates = total;
    obs.bound = format!("the abstract program alone, and with {}", parts.join("; or with "));
    if searches.len() > 1 {
        obs.bound += " (one observer library per client: the searches of each library, smallest first across them)";
    }
    if !skipped.is_empty() {
        obs.bound += &format!("; not drawn from {}", skipped.join(", "));
    }
    let mut how = ClientCheck::new(loop_bound, true);
    how.deadline = Some(start + budget);
    let try_one = |lit: &Litmus, what: &dyn Fn() -> (String, String), obs: &mut Observation| -> bool {
        if start.elapsed() >= budget {
            obs.note = Some(format!("the time budget ({:.0} s) ran out", budget.as_secs_f64()));
            return false;
        }
        obs.tried += 1;
        let r = match refine_parsed_on(imp, order, "observe", lit, &|| print::print(lit), &how) {
            Ok(r) => r,
            Err(e) => {
                obs.errors += 1;
                obs.first_error.get_or_insert_with(|| e.to_string());
                return true;
            }
        };
        if r.verdict != ClientVerdict::Fail {
            return true;
        }
        let (kind, shape) = what();
        let name = format!("observe-{}-{kind}", imp.name);
        let mut named = lit.clone();
        named.name = name.clone();
        obs.client = Some(failing_text(&print::print(&named), imp, &r));
        obs.name = Some(name);
        obs.shape = Some(shape);
        false
    };
    // the abstract program itself first
    let bare = searches[0].build(&Cand { config: 0, slots: &[], calls: &[], extra: None }, "observe-0");
    if !try_one(&bare, &|| ("abstract".into(), "the abstract program alone".into()), &mut obs) {
        return obs;
    }
    let visit = |search: &Search, c: &Cand, obs: &mut Observation| {
        let lit = search.build(c, &format!("observe-{}", obs.tried));
        try_one(&lit, &|| (format!("{}calls", c.size()), search.describe(c)), obs)
    };
    // the narrow parts level by level across the libraries, then the wide parts
    for n in 1..=space.calls {
        for search in &searches {
            if !search.visit_narrow(n, &mut |c| visit(search, c, &mut obs)) {
                return obs;
            }
        }
    }
    for (search, &w) in searches.iter().zip(&wide) {
        if w && !search.visit_wide(&mut |c| visit(search, c, &mut obs)) {
            return obs;
        }
    }
    obs
}

/// Fills `rep.observations`, one per failure: failures of the same abstract program
/// and reason share one search. Each search has `budget`.
pub fn observe_all(
    imp: &Implementation,
    order: &StampOrder,
    rep: &mut super::Report,
    loop_bound: usize,
    budget: Duration,
) {
    let mut seen: Vec<(String, String, usize)> = Vec::new();
    rep.observations.clear();
    for f in &rep.failures {
        let prior = seen.iter().find(|(p, r, _)| *p == f.client && *r == f.reason).map(|x| x.2);
        let o = match prior {
            Some(i) => rep.observations[i].clone(),
            None => {
                // the parsed test that was checked; a failure made elsewhere (none
                // today) is read back from its text
                let parsed = match &f.test {
                    Some(t) => Ok(t.clone()),
                    None => crate::lang::syntax::parse(&f.client).map_err(|e| e.to_string()),
                };
                let mut o = match parsed {
                    Ok(program) => observe(imp, order, &program, &f.reason, loop_bound, budget),
                    Err(e) => Observation {
                        client: None,
                        name: None,
                        shape: None,
                        tried: 0,
                        candidates: 0,
                        bound: String::new(),
                        note: Some(format!("the abstract program could not be read back: {e}")),
                        errors: 0,
                        first_error: None,
                    },
                };
                // one file per refutation: the failure's number in the name
                if let (Some(name), Some(text)) = (&o.name, &o.client) {
                    let numbered = name.replacen(
                        &format!("observe-{}-", imp.name),
                        &format!("observe-{}-{}-", imp.name, rep.observations.len() + 1),
                        1,
                    );
                    o.client = Some(text.replacen(&format!("test {name}\n"), &format!("test {numbered}\n"), 1));
                    o.name = Some(numbered);
                }
                o
            }
        };
        seen.push((f.client.clone(), f.reason.clone(), rep.observations.len()));
        rep.observations.push(o);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_read_from_subevent_names() {
        let r = "so' edge T1#0.aCW → T2#1.aCR of the abstract execution: its image s5.aCW → s7.aCR is not in hb";
        assert_eq!(endpoints(r), vec![(0, 0), (1, 1)]);
        assert_eq!(endpoints("no names here"), vec![]);
    }

    #[test]
    fn products_and_multisets_count() {
        let mut n = 0;
        product(&[2, 3], &mut |_| {
            n += 1;
            true
        });
        assert_eq!(n, 6);
        // non-decreasing sequences of 2 below 3: C(3 + 2 - 1, 2) = 6
        let mut seen = Vec::new();
        multisets(3, 2, &mut |s| {
            seen.push(s.to_vec());
            true
        });
        assert_eq!(seen.len(), 6);
        assert!(seen.iter().all(|s| s[0] <= s[1]));
    }
}
