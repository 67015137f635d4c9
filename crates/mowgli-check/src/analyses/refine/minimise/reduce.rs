//! The reductions of a client, in their fixed order, and the order they shrink.

use std::collections::BTreeSet;

use super::body::*;
use super::size;
use crate::lang::ast::{Ex, Stmt};
use crate::lang::print;
use crate::lang::syntax::{Lit, Litmus, Name, Pos};

/// A single reduction of a client: what it does, and the reduced client (its
/// expectations with the atoms naming what it removed dropped).
#[derive(Clone, Debug)]
pub struct Candidate {
    pub what: String,
    pub client: Litmus,
}

/// Values to try in place of a non-negative integer `v`: 0, 1, 2 and v − 1 (those
/// below `v`).
pub(super) fn smaller(v: i64) -> Vec<i64> {
    let mut out: Vec<i64> = (0..3).filter(|w| *w < v).collect();
    if v > 3 {
        out.push(v - 1);
    }
    if v < 0 {
        out.push(0);
    }
    out
}

/// Every single reduction of `t`, in the fixed order of the [`super`] module documentation.
pub fn candidates(t: &Litmus) -> Vec<Candidate> {
    let mut out = Vec::new();
    let mut push = |what: String, mut c: Litmus| {
        fix_expects(&mut c);
        out.push(Candidate { what, client: c });
    };
    // drop a thread (with the barrier and ring roles it has)
    for (th, _) in &t.threads {
        let mut c = t.clone();
        c.threads.retain(|(n, _)| n.text != th.text);
        c.bodies.retain(|(n, _)| n.text != th.text);
        for (_, ts) in &mut c.barriers {
            ts.retain(|n| n.text != th.text);
        }
        c.barriers.retain(|(_, ts)| !ts.is_empty());
        c.rings.retain(|(_, w, _, _)| w.text != th.text);
        for (_, _, rs, _) in &mut c.rings {
            rs.retain(|n| n.text != th.text);
        }
        if c.rings.iter().any(|(_, _, rs, _)| rs.is_empty()) || c.threads.is_empty() {
            continue;
        }
        push(format!("drop thread {}", th.text), c);
    }
    // drop a statement
    let statements: usize = t.bodies.iter().map(|(_, b)| count_stmts(b)).sum();
    for k in 0..statements {
        let mut c = t.clone();
        let mut left = k;
        let mut removed = None;
        for (th, body) in &mut c.bodies {
            walk_lists_mut(body, &mut |ss| {
                if removed.is_some() {
                    return;
                }
                // the statements of this list only (their blocks are lists of their own)
                let here = ss.len();
                if left < here {
                    removed = Some((th.text.clone(), ss.remove(left)));
                } else {
                    left -= here;
                }
            });
        }
        if let Some((th, s)) = removed {
            let kind = if matches!(short_kind(&s), "call") { "call" } else { "statement" };
            push(format!("drop {kind} `{}` of {th}", short(&s)), c);
        }
    }
    // replace an `if` by its `then` or its `else` branch
    let ifs: usize = t.bodies.iter().map(|(_, b)| count_where(b, &|s| matches!(s, Stmt::If { .. }))).sum();
    for k in 0..ifs {
        for branch in [true, false] {
            let mut c = t.clone();
            let mut left = k;
            let mut done = None;
            for (th, body) in &mut c.bodies {
                let th = th.text.clone();
                walk_lists_mut(body, &mut |ss| {
                    if done.is_some() {
                        return;
                    }
                    for i in 0..ss.len() {
                        if !matches!(ss[i], Stmt::If { .. }) {
                            continue;
                        }
                        if left > 0 {
                            left -= 1;
                            continue;
                        }
                        let Stmt::If { then, els, .. } = ss[i].clone() else { return };
                        let what = short(&ss[i]);
                        match if branch { Some(then) } else { els } {
                            Some(b) => {
                                ss.splice(i..=i, b.stmts);
                                done = Some(Some((th.clone(), what)));
                            }
                            // no `else`: dropping the statement is a reduction of its own
                            None => done = Some(None),
                        }
                        return;
                    }
                });
            }
            if let Some(Some((th, what))) = done {
                let b = if branch { "its `then` branch" } else { "its `else` branch" };
                push(format!("replace `{what}` of {th} by {b}"), c);
            }
        }
    }
    // drop an element of a set literal (a node of a node set, an iteration of a `for`)
    let mut sets = Vec::new();
    walk_exprs_mut(&mut t.clone(), &mut |e| {
        if let Ex::Set(es, _) = e {
            sets.push(es.len());
        }
    });
    for (k, &n) in sets.iter().enumerate() {
        for j in 0..n {
            let mut c = t.clone();
            let mut seen = 0;
            let mut what = String::new();
            walk_exprs_mut(&mut c, &mut |e| {
                if let Ex::Set(es, _) = e {
                    if seen == k {
                        what = format!(
                            "drop `{}` from `{}`",
                            print::expr(&es[j]),
                            print::expr(&Ex::Set(es.clone(), Pos::default()))
                        );
                        es.remove(j);
                    }
                    seen += 1;
                }
            });
            push(what, c);
        }
    }
    // simplify an argument of a call
    let mut calls = Vec::new();
    walk_calls_mut(&mut t.clone(), &mut |th, c| calls.push((th.to_string(), c.clone())));
    let decl = declared(t);
    for (k, (th, call)) in calls.iter().enumerate() {
        let bound = bound_names(t, th);
        for (ai, a) in call.args.iter().enumerate() {
            for (what, simpler) in simpler_args(a, &|n: &str| is_wid(n, &decl, &bound)) {
                let mut c = t.clone();
                let mut seen = 0;
                walk_calls_mut(&mut c, &mut |_, cc| {
                    if seen == k {
                        cc.args[ai] = simpler.clone();
                    }
                    seen += 1;
                });
                push(format!("{what} in `{}` of {th}", print::call(call)), c);
            }
        }
    }
    // declarations: unused locations, barriers, rings; libraries
    let used = used_names(t);
    for (i, l) in t.locs.iter().enumerate() {
        if !used.contains(&l.name.text) {
            let mut c = t.clone();
            c.locs.remove(i);
            push(format!("drop unused location {}", l.name.text), c);
        }
    }
    for (i, (z, _)) in t.barriers.iter().enumerate() {
        if !used.contains(&z.text) {
            let mut c = t.clone();
            c.barriers.remove(i);
            push(format!("drop unused barrier {}", z.text), c);
        }
    }
    for (i, (q, ..)) in t.rings.iter().enumerate() {
        if !used.contains(&q.text) {
            let mut c = t.clone();
            c.rings.remove(i);
            push(format!("drop unused ring {}", q.text), c);
        }
    }
    if t.libraries.len() > 1 {
        for (i, l) in t.libraries.iter().enumerate() {
            let mut c = t.clone();
            c.libraries.remove(i);
            push(format!("drop library {}", l.text), c);
        }
    }
    // smaller sizes and initial values
    for (i, (q, _, _, size)) in t.rings.iter().enumerate() {
        for s in smaller(size.unwrap_or(4)).into_iter().filter(|s| *s >= 1) {
            let mut c = t.clone();
            c.rings[i].3 = Some(s);
            push(format!("ring {} of size {s}", q.text), c);
        }
    }
    for (i, l) in t.locs.iter().enumerate() {
        if let Some(Lit::Int(v)) = l.init {
            let mut c = t.clone();
            c.locs[i].init = None;
            push(format!("location {} initially 0 (no initial value)", l.name.text), c);
            for w in smaller(v).into_iter().filter(|w| *w != 0) {
                let mut c = t.clone();
                c.locs[i].init = Some(Lit::Int(w));
                push(format!("location {} initially {w}", l.name.text), c);
            }
        }
        if let Some(k) = l.size {
            for s in smaller(k).into_iter().filter(|s| *s >= 1) {
                let mut c = t.clone();
                c.locs[i].size = Some(s);
                push(format!("location {} of size {s}", l.name.text), c);
            }
        }
    }
    // merge two locations: the second's uses become the first's
    for i in 0..t.locs.len() {
        for j in i + 1..t.locs.len() {
            let (keep, gone) = (t.locs[i].name.text.clone(), t.locs[j].name.text.clone());
            let mut c = t.clone();
            c.locs.remove(j);
            walk_exprs_mut(&mut c, &mut |e| {
                if let Ex::Var(n) = e {
                    if n.text == gone {
                        n.text = keep.clone();
                    }
                }
            });
            push(format!("merge location {gone} into {keep}"), c);
        }
    }
    // nodes: drop a node (its threads and locations move to another), move a
    // thread to a smaller node, renumber a node to a smaller free one
    let nodes = used_nodes(t);
    for &n in &nodes {
        for &m in nodes.iter().filter(|m| **m != n) {
            push(format!("drop node {n} (its threads and locations move to node {m})"), renode(t, n, m));
        }
    }
    for (i, (th, n)) in t.threads.iter().enumerate() {
        for &m in nodes.iter().filter(|m| *m < n) {
            let mut c = t.clone();
            c.threads[i].1 = m;
            push(format!("move thread {} to node {m}", th.text), c);
        }
    }
    for &n in &nodes {
        for m in (1..n).filter(|m| !nodes.contains(m)) {
            push(format!("renumber node {n} as {m}"), renode(t, n, m));
        }
    }
    // replace an observation (a call whose result a register holds) by a copy of
    // another thread's observation, the thread taking the role that call needs (a
    // reader of its ring, a participant of its barrier), and drop a call on what it
    // observed: the observed value then comes from elsewhere (e.g. a Receive of the
    // message a Submit sends, in place of a Read of a location written for the purpose)
    let mut bound_calls = Vec::new();
    walk_bound_calls_mut(&mut t.clone(), &mut |th, b, _| bound_calls.push((th.to_string(), b)));
    for (ci, (cth, call)) in calls.iter().enumerate() {
        if !bound_calls[ci].1 {
            continue;
        }
        let mut shown: BTreeSet<String> = BTreeSet::new();
        for (di, (dth, other)) in calls.iter().enumerate() {
            let text = print::call(other);
            if !bound_calls[di].1 || dth == cth || text == print::call(call) || !shown.insert(text.clone()) {
                continue;
            }
            let mut base = t.clone();
            let mut seen = 0;
            walk_calls_mut(&mut base, &mut |_, cc| {
                if seen == ci {
                    *cc = other.clone();
                }
                seen += 1;
            });
            let mut roles = Vec::new();
            for a in &other.args {
                let Ex::Var(n) = a else { continue };
                let me = Name { text: cth.clone(), pos: Pos::default() };
                for (q, w, rs, _) in &mut base.rings {
                    if q.text == n.text && w.text != *cth && !rs.iter().any(|r| r.text == *cth) {
                        rs.push(me.clone());
                        roles.push(format!("{cth} reads ring {}", q.text));
                    }
                }
                for (z, ts) in &mut base.barriers {
                    if z.text == n.text && !ts.iter().any(|r| r.text == *cth) {
                        ts.push(me.clone());
                        roles.push(format!("{cth} takes part in barrier {}", z.text));
                    }
                }
            }
            let roles = if roles.is_empty() { String::new() } else { format!(" ({})", roles.join(", ")) };
            // the calls on what the replaced observation observed (e.g. the write of
            // the location it read), which it no longer observes
            let observed: BTreeSet<&str> = call
                .args
                .iter()
                .filter_map(|a| match a {
                    Ex::Var(n) if n.text != "_" => Some(n.text.as_str()),
                    _ => None,
                })
                .collect();
            for (ei, (eth, dropped)) in calls.iter().enumerate() {
                let on_observed =
                    dropped.args.iter().any(|a| matches!(a, Ex::Var(n) if observed.contains(n.text.as_str())));
                if ei == ci || !on_observed {
                    continue;
                }
                let mut c = base.clone();
                drop_call(&mut c, ei);
                push(
                    format!(
                        "replace `{}` of {cth} by `{text}`{roles} and drop call `{}` of {eth}",
                        print::call(call),
                        print::call(dropped)
                    ),
                    c,
                );
            }
        }
    }
    // drop a library qualifier
    for (k, (th, call)) in calls.iter().enumerate() {
        if call.lib.is_some() {
            let mut c = t.clone();
            let mut seen = 0;
            walk_calls_mut(&mut c, &mut |_, cc| {
                if seen == k {
                    cc.lib = None;
                }
                seen += 1;
            });
            push(format!("unqualify `{}` of {th}", print::call(call)), c);
        }
    }
    out
}

pub(super) fn count_stmts(ss: &[Stmt]) -> usize {
    count_where(ss, &|_| true)
}

pub(super) fn count_where(ss: &[Stmt], p: &dyn Fn(&Stmt) -> bool) -> usize {
    let mut n = 0;
    walk_stmts(ss, &mut |s| n += usize::from(p(s)));
    n
}

/// Whether a name passed to a call is a work identifier (no location, barrier, ring,
/// bound name or context name).
pub(super) fn is_wid(n: &str, declared: &BTreeSet<String>, bound: &BTreeSet<String>) -> bool {
    n != "_" && !declared.contains(n) && !bound.contains(n) && !CONTEXT.contains(&n)
}

/// Simpler forms of an argument: `_` for a work identifier, a smaller integer, a
/// tuple with a component dropped or simpler.
pub(super) fn simpler_args(a: &Ex, wid: &dyn Fn(&str) -> bool) -> Vec<(String, Ex)> {
    let p = Pos::default();
    match a {
        Ex::Var(n) if wid(&n.text) => {
            vec![(format!("`_` for `{}`", n.text), Ex::Var(Name { text: "_".into(), pos: p }))]
        }
        Ex::Int(v, _) => smaller(*v).into_iter().map(|w| (format!("`{w}` for `{v}`"), Ex::Int(w, p))).collect(),
        Ex::Tuple(es, _) => {
            let mut out = Vec::new();
            let shown = print::expr(a);
            for j in 0..es.len() {
                let mut fewer = es.clone();
                fewer.remove(j);
                let f = Ex::Tuple(fewer, p);
                out.push((format!("`{}` for `{shown}`", print::expr(&f)), f));
            }
            for (j, e) in es.iter().enumerate() {
                for (_, s) in simpler_args(e, wid) {
                    let mut es2 = es.clone();
                    es2[j] = s;
                    let f = Ex::Tuple(es2, p);
                    out.push((format!("`{}` for `{shown}`", print::expr(&f)), f));
                }
            }
            out
        }
        _ => vec![],
    }
}

/// `t` with node `n` renamed `m`: in `thread` and `loc` declarations and in the
/// node sets passed to calls (duplicates dropped).
pub(super) fn renode(t: &Litmus, n: i64, m: i64) -> Litmus {
    let mut c = t.clone();
    for (_, node) in &mut c.threads {
        if *node == n {
            *node = m;
        }
    }
    for l in &mut c.locs {
        if l.node == Some(n) {
            l.node = Some(m);
        }
    }
    walk_calls_mut(&mut c, &mut |_, call| {
        for a in &mut call.args {
            if let Ex::Set(es, _) = a {
                let mut seen = BTreeSet::new();
                for e in es.iter_mut() {
                    if matches!(e, Ex::Int(v, _) if *v == n) {
                        *e = Ex::Int(m, Pos::default());
                    }
                }
                es.retain(|e| match e {
                    Ex::Int(v, _) => seen.insert(*v),
                    _ => true,
                });
            }
        }
    });
    c
}

/// The order in which clients shrink, compared lexicographically: threads, calls,
/// statements, set elements, declarations (locations, barriers, rings, libraries),
/// nodes, the sum of the node numbers of the declarations, the argument weight (integer values, named
/// work identifiers and tuple components in call arguments; ring sizes, initial
/// values, tuple sizes), library qualifiers. Every reduction of [`candidates`]
/// makes it smaller, and [`super::minimise`] keeps only candidates that do, so it ends.
pub fn measure(t: &Litmus) -> [u64; 9] {
    let sz = size(t);
    let statements: usize = t.bodies.iter().map(|(_, b)| count_stmts(b)).sum();
    let mut set_elems = 0u64;
    walk_exprs_mut(&mut t.clone(), &mut |e| {
        if let Ex::Set(es, _) = e {
            set_elems += es.len() as u64;
        }
    });
    let decl = declared(t);
    let mut weight = 0u64;
    let mut qualifiers = 0u64;
    let mut c = t.clone();
    let bound: Vec<(String, BTreeSet<String>)> =
        t.threads.iter().map(|(n, _)| (n.text.clone(), bound_names(t, &n.text))).collect();
    walk_calls_mut(&mut c, &mut |th, call| {
        qualifiers += u64::from(call.lib.is_some());
        let b = bound.iter().find(|(n, _)| n == th).map(|(_, b)| b.clone()).unwrap_or_default();
        for a in &call.args {
            weight = weight.saturating_add(arg_weight(a, &|n: &str| is_wid(n, &decl, &b)));
        }
    });
    for (_, _, _, s) in &t.rings {
        weight = weight.saturating_add(s.unwrap_or(4).unsigned_abs());
    }
    for l in &t.locs {
        if let Some(Lit::Int(v)) = l.init {
            weight = weight.saturating_add(v.unsigned_abs()).saturating_add(1);
        }
        weight = weight.saturating_add(l.size.unwrap_or(0).unsigned_abs());
    }
    let nodes = used_nodes(t);
    [
        sz.threads as u64,
        sz.calls as u64,
        statements as u64,
        set_elems,
        (t.locs.len() + t.barriers.len() + t.rings.len() + t.libraries.len()) as u64,
        nodes.len() as u64,
        t.threads.iter().map(|(_, n)| *n).chain(t.locs.iter().filter_map(|l| l.node)).map(i64::unsigned_abs).sum(),
        weight,
        qualifiers,
    ]
}

pub(super) fn arg_weight(a: &Ex, wid: &dyn Fn(&str) -> bool) -> u64 {
    match a {
        Ex::Var(n) => u64::from(wid(&n.text)),
        Ex::Int(v, _) => v.unsigned_abs().saturating_add(u64::from(*v < 0)),
        Ex::Tuple(es, _) => es.iter().fold(0u64, |w, e| w.saturating_add(arg_weight(e, wid)).saturating_add(1)),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::print::print;
    use crate::lang::syntax;

    #[test]
    fn candidates_shrink_the_measure() {
        let t = syntax::parse(
            "test C\nlibraries sv, rdmawait\nthread T1 @ 1\nthread T2 @ 3\nloc x\nloc y\nloc a @ 3 = 2\n\
             T1:\n  sv.Write(x, 3)\n  r = sv.Read(y)\n  if r == 1 { Put(a, 1, d) } else { Wait(d) }\n  \
             for i in {1, 2} { sv.GF({1, 3}) }\nT2:\n  s = sv.Read(x)\n\
             expect forbidden T1:r = 0 /\\ T2:s = 0 /\\ a = 2\n",
        )
        .expect("parses");
        let cands = candidates(&t);
        let m = measure(&t);
        for c in &cands {
            assert!(measure(&c.client) < m, "{}: {:?} vs {m:?}", c.what, measure(&c.client));
        }
        let whats: Vec<&str> = cands.iter().map(|c| c.what.as_str()).collect();
        for w in [
            "drop thread T2",
            "drop call `r = sv.Read(y)` of T1",
            "replace `if r == 1 { …` of T1 by its `else` branch",
            "drop `1` from `{1, 2}`",
            "`_` for `d` in `Put(a, 1, d)` of T1",
            "`2` for `3` in `sv.Write(x, 3)` of T1",
            "location a initially 1",
            "merge location y into x",
            "drop node 3 (its threads and locations move to node 1)",
            "renumber node 3 as 2",
            "unqualify `sv.GF({1, 3})` of T1",
        ] {
            assert!(whats.contains(&w), "{w} not in {whats:#?}");
        }
        // dropping T2 drops its atom; dropping the read drops T1:r
        let c = cands.iter().find(|c| c.what == "drop thread T2").expect("found");
        assert_eq!(c.client.expects[0].text, "T1:r = 0 /\\ a = 2");
        let c = cands.iter().find(|c| c.what == "drop call `r = sv.Read(y)` of T1").expect("found");
        assert_eq!(c.client.expects[0].text, "T2:s = 0 /\\ a = 2");
        // node 3 dropped into 1: the set {1, 3} becomes {1}
        let c = cands.iter().find(|c| c.what.starts_with("drop node 3")).expect("found");
        assert!(print(&c.client).contains("sv.GF({1})"), "{}", print(&c.client));
    }
}
