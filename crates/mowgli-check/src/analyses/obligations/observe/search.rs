//! The candidate space of one refutation's observation search ([`super::Space`]
//! for one observer library): the slots of the abstract program where observer
//! calls go, the homes of the observer locations with the calls drawn on each node,
//! the enumeration of candidates smallest first, the filters that keep one of each
//! up to renaming, and the test a candidate is.

use super::{endpoints, Space};
use crate::analyses::refine::gen::{DrawnCall, Generator};
use crate::lang::ast::{Rhs, Stmt};
use crate::lang::implementation::Implementation;
use crate::lang::lex::Name;
use crate::lang::print;
use crate::lang::syntax::{Litmus, LocDecl, Pos};
use mowgli_core::StampOrder;

/// One assignment of homes to the observer locations, and the calls drawn for it
/// on each node a thread may stand on.
struct Config {
    homes: Vec<i64>,
    /// The client's nodes (the program's, and the fresh node when a location is there).
    alpha: Vec<(i64, Vec<DrawnCall>)>,
}

impl Config {
    pub(super) fn at(&self, node: i64) -> &[DrawnCall] {
        self.alpha.iter().find(|(n, _)| *n == node).map_or(&[], |(_, a)| a.as_slice())
    }
}

/// A candidate: a home assignment, the inserted calls (slot, call index of the
/// slot's node), and the new thread's node and calls.
pub(super) struct Cand<'a> {
    pub(super) config: usize,
    pub(super) slots: &'a [usize],
    pub(super) calls: &'a [usize],
    pub(super) extra: Option<(i64, &'a [usize])>,
}

impl Cand<'_> {
    pub(super) fn size(&self) -> usize {
        self.slots.len() + self.extra.map_or(0, |e| e.1.len())
    }
}

/// The space of one refutation's candidates.
pub(super) struct Search {
    /// When the visits stop, however few candidates they handed out (most
    /// candidates can be filtered out before any reaches the caller).
    pub(super) deadline: Option<std::time::Instant>,
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
    pub(super) fn new(
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
        Ok(Search { deadline: None, prog, observer, placed, nodes, slots, ends, configs, wid_letters, space: *space })
    }

    /// The candidates of the narrow part with `n` observer calls, in the search
    /// order; stops when `f` says so (then false).
    pub(super) fn visit_narrow(&self, n: usize, f: &mut dyn FnMut(&Cand) -> bool) -> bool {
        let most_extra = if self.space.new_thread { n - 1 } else { 0 };
        self.visit_level(n, 0..=most_extra, false, f)
    }

    /// The candidates of the wide part, in the search order.
    pub(super) fn visit_wide(&self, f: &mut dyn FnMut(&Cand) -> bool) -> bool {
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
    pub(super) fn count_wide(&self, cap: usize) -> usize {
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
    pub(super) fn visit_level(
        &self,
        n: usize,
        extra: std::ops::RangeInclusive<usize>,
        talking: bool,
        f: &mut dyn FnMut(&Cand) -> bool,
    ) -> bool {
        let any_end = self.ends.iter().any(|e| !e);
        // every so many candidates, filtered out or not, the deadline is asked
        let mut seen = 0u32;
        let deadline = self.deadline;
        let mut past = move || {
            seen = seen.wrapping_add(1);
            seen.is_multiple_of(4096) && deadline.is_some_and(|d| std::time::Instant::now() >= d)
        };
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
                                if past() {
                                    return false;
                                }
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
    pub(super) fn talking(&self, c: &Cand) -> bool {
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
    pub(super) fn waits_follow(&self, c: &Cand) -> bool {
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
    pub(super) fn call_in(&self, d: &DrawnCall, b: usize) -> crate::lang::ast::CallEx {
        let mut call = d.call.clone();
        for &(i, w, _) in &d.wids {
            if let (Some(a), Some(letter)) = (call.args.get_mut(i), self.wid_letters.get(w)) {
                *a = crate::lang::ast::Ex::Var(name(format!("{letter}{}", b + 1)));
            }
        }
        call
    }

    /// The calls of a candidate, each with its thread's node.
    pub(super) fn calls<'a>(&'a self, c: &'a Cand) -> impl Iterator<Item = &'a DrawnCall> + 'a {
        let cfg = &self.configs[c.config];
        let ins = c.slots.iter().zip(c.calls).map(move |(&s, &k)| &cfg.at(self.slots[s].2)[k]);
        let extra = c.extra.into_iter().flat_map(move |(m, ks)| ks.iter().map(move |&k| &cfg.at(m)[k]));
        ins.chain(extra)
    }

    /// One candidate per client up to the order of the observer locations: the
    /// locations used are `a`, then `b`, …, and an unused one is on the first node.
    pub(super) fn canonical(&self, c: &Cand) -> bool {
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
    pub(super) fn build(&self, c: &Cand, test: &str) -> Litmus {
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
    pub(super) fn describe(&self, c: &Cand) -> String {
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
    pub(super) fn bound(&self) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn products_and_multisets_count() {
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
