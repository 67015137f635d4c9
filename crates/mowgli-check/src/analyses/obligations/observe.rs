//! From a refuted obligation to a client (issue 17): an obligation of LOCO Def. 3.13
//! is sufficient for soundness, not necessary, so a refutation only says that the
//! proof method fails on one abstract execution. Whether a *client* can tell the
//! implementation from its specification is a refinement question (Def. 3.10). This
//! module asks it: it takes the abstract program of a refutation and adds observer
//! calls around the calls the refutation names, in the shapes that observe an order
//! between two events:
//!
//! | shape | inserted | observes |
//! |---|---|---|
//! | MP | a write of `y` at the first point, a read of `y` at the second (another thread) | the first point hb-before the second |
//! | LB | a read of `y` at the first point, a write of `y` at the second (another thread) | the same, read the other way |
//! | SB | a write of `y` at the first point, a read of `z` at the second, and a new thread `W z; fence; R y` | the same, also when both points are in one thread |
//!
//! each also with a fence after the inserted write and before the inserted read (the
//! observer library's own: `sv`'s `GF` over every node, `rdmawait`'s `Mfence`), and
//! for `rdmawait` with a `Put` in place of a local write. Every candidate is run
//! through [`refine_client`]; the first whose implementation reaches an outcome the
//! specification forbids is the observing client. The candidates are tried with the
//! refutation's endpoints first (the calls its reason names), then at every other
//! position; the report always says how many were tried.

use std::time::{Duration, Instant};

use mowgli_core::StampOrder;
use serde::Serialize;

use crate::analyses::refine::gen::{failing_text, Bounds};
use crate::analyses::refine::refine_client;
use crate::lang::implementation::Implementation;

/// What [`observe`] found for one refutation.
#[derive(Clone, Debug, Serialize)]
pub struct Observation {
    /// The observing client (a litmus text with the forbidden outcome as an
    /// expectation), if one was found.
    pub client: Option<String>,
    /// Its name and shape.
    pub name: Option<String>,
    pub shape: Option<String>,
    /// Candidate clients run through `refine`.
    pub tried: usize,
    /// Candidate clients of the bound (all shapes at all positions).
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

/// One thread of an abstract program: its name, node and call lines.
#[derive(Clone, Debug)]
struct Thread {
    name: String,
    node: u32,
    lines: Vec<String>,
}

/// An abstract program as the generator renders it: header lines, then threads.
#[derive(Clone, Debug)]
struct Program {
    header: Vec<String>,
    threads: Vec<Thread>,
    nodes: Vec<u32>,
}

fn parse(text: &str) -> Option<Program> {
    let mut header = Vec::new();
    let mut threads: Vec<Thread> = Vec::new();
    let mut nodes = Vec::new();
    let mut placed: Vec<(String, u32)> = Vec::new();
    let mut current: Option<usize> = None;
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with("expect") {
            continue;
        }
        if let Some(rest) = t.strip_prefix("thread ") {
            let (name, node) = rest.split_once('@')?;
            let node: u32 = node.trim().parse().ok()?;
            placed.push((name.trim().to_string(), node));
            if !nodes.contains(&node) {
                nodes.push(node);
            }
            header.push(t.to_string());
            continue;
        }
        if let Some(name) = t.strip_suffix(':').filter(|n| placed.iter().any(|(p, _)| p == n)) {
            let node = placed.iter().find(|(p, _)| p == name)?.1;
            threads.push(Thread { name: name.to_string(), node, lines: Vec::new() });
            current = Some(threads.len() - 1);
            continue;
        }
        match current {
            Some(i) => threads[i].lines.push(t.to_string()),
            None => header.push(t.to_string()),
        }
    }
    nodes.sort();
    (!threads.is_empty()).then_some(Program { header, threads, nodes })
}

/// The observer library of the clients built for implementation `imp` (the one
/// the client generator adds for its library, or else one the implementation
/// uses), with the methods the shapes need, found by their declared roles: a write
/// of a value to a location, a read of a location that returns its value, a put
/// of a local source to a location anywhere (located memory), a fence (a method
/// whose parameters are all node sets, or none).
fn observer_of(imp: &Implementation, order: &StampOrder) -> Result<ObsLib, String> {
    let default = Bounds::in_catalogue(&imp.implements, &imp.catalogue, 1, 1, 1).observer;
    for cand in default.iter().chain(imp.uses.iter()) {
        if *cand == imp.implements {
            continue;
        }
        let Ok(l) = imp.catalogue.library(cand, order) else { continue };
        if let Some(o) = ObsLib::of(cand, l.as_ref()) {
            return Ok(o);
        }
    }
    Err(format!(
        "`{}` uses {}, which has no location write and read by their declarations (LOCO App. F.4): a client of it cannot add observer calls",
        imp.name,
        imp.uses.join(", ")
    ))
}

/// An observer library and the methods the shapes use.
struct ObsLib {
    name: String,
    write: &'static str,
    read: &'static str,
    put: Option<&'static str>,
    /// The work identifiers the put takes (all given as `_`).
    put_wids: usize,
    /// The fence and whether it takes the set of every node.
    fence: Option<(&'static str, bool)>,
    /// Locations have a home node.
    placed: bool,
}

impl ObsLib {
    fn of(name: &str, l: &dyn mowgli_core::Library) -> Option<ObsLib> {
        use mowgli_core::{Ret, Role};
        let sigs = l.methods();
        let find =
            |f: &dyn Fn(&mowgli_core::MethodSig) -> bool| sigs.iter().find(|m| !m.extension && f(m)).map(|m| m.name);
        let write =
            find(&|m| matches!(m.roles.as_slice(), [Role::Loc { written: true, .. }, Role::Val]) && m.rets.is_empty())?;
        let read = find(&|m| {
            matches!(m.roles.as_slice(), [Role::Loc { written: false, .. }]) && m.rets.contains(&Ret::ValueOf(0))
        })?;
        let put = find(&|m| {
            matches!(m.roles.as_slice(), [Role::Loc { local: false, written: true, .. }, Role::Src, ..])
                && m.roles[2..].iter().all(|r| matches!(r, Role::Wid { awaited: false }))
        });
        let fence = find(&|m| m.roles.iter().all(|r| *r == Role::Nodes) && m.rets.is_empty())
            .map(|f| (f, sigs.iter().any(|m| m.name == f && !m.roles.is_empty())));
        let placed = !l.memory().replicated;
        let put_wids = put.and_then(|p| sigs.iter().find(|m| m.name == p)).map_or(0, |m| m.roles.len() - 2);
        Some(ObsLib { name: name.to_string(), write, read, put: put.filter(|_| placed), put_wids, fence, placed })
    }
}

/// An observer location: its name and, on located memory, its home node.
struct Loc {
    name: &'static str,
    home: u32,
}

/// Builds one candidate client: `ins` lists, per thread, (position, lines) to insert
/// before the call at that position; `extra` a new thread (node, lines).
struct Builder<'a> {
    prog: &'a Program,
    obs: &'a ObsLib,
    nodes_text: String,
    /// The implemented library, whose calls are qualified (`msw.Write`) so that
    /// they cannot clash with the observer's methods.
    lib: String,
}

/// `r = M(args)` or `M(args)` with the method qualified by `lib`.
fn qualify(line: &str, lib: &str) -> String {
    let (lhs, call) = match line.split_once(" = ") {
        Some((l, c)) => (format!("{l} = "), c),
        None => (String::new(), line),
    };
    if call.contains('.') && call.find('.') < call.find('(') {
        return line.to_string();
    }
    format!("{lhs}{lib}.{call}")
}

impl Builder<'_> {
    fn write(&self, loc: &Loc, node: u32, put: bool) -> String {
        let o = self.obs;
        match o.put {
            Some(p) if put || (o.placed && loc.home != node) => {
                let wids = ", _".repeat(o.put_wids);
                format!("{}.{p}({}, 1{wids})", o.name, loc.name)
            }
            _ => format!("{}.{}({}, 1)", o.name, o.write, loc.name),
        }
    }
    fn read(&self, loc: &Loc, reg: &str) -> String {
        format!("{reg} = {}.{}({})", self.obs.name, self.obs.read, loc.name)
    }
    fn fence(&self) -> String {
        match self.obs.fence {
            Some((f, true)) => format!("{}.{f}({})", self.obs.name, self.nodes_text),
            Some((f, false)) => format!("{}.{f}()", self.obs.name),
            None => String::new(),
        }
    }

    fn render(
        &self,
        name: &str,
        locs: &[&Loc],
        ins: &[(usize, usize, Vec<String>)],
        extra: Option<(u32, Vec<String>)>,
    ) -> String {
        let p = self.prog;
        let mut s = format!("test {name}\n");
        for h in &p.header {
            if let Some(libs) = h.strip_prefix("libraries ") {
                s += &format!("libraries {libs}, {}\n", self.obs.name);
            } else if h.starts_with("test ") || h.starts_with('"') {
                continue;
            } else {
                s += &format!("{h}\n");
            }
        }
        let oname = format!("T{}", p.threads.len() + 1);
        if let Some((n, _)) = &extra {
            s += &format!("thread {oname} @ {n}\n");
        }
        for l in locs {
            s += &if self.obs.placed { format!("loc {} @ {}\n", l.name, l.home) } else { format!("loc {}\n", l.name) };
        }
        for (ti, t) in p.threads.iter().enumerate() {
            s += &format!("{}:\n", t.name);
            for pos in 0..=t.lines.len() {
                for (_, _, lines) in ins.iter().filter(|(i, at, _)| *i == ti && *at == pos) {
                    for l in lines {
                        s += &format!("  {l}\n");
                    }
                }
                if let Some(l) = t.lines.get(pos) {
                    s += &format!("  {}\n", qualify(l, &self.lib));
                }
            }
        }
        if let Some((_, lines)) = extra {
            s += &format!("{oname}:\n");
            for l in lines {
                s += &format!("  {l}\n");
            }
        }
        s
    }
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

/// A candidate: its shape and the text.
struct Candidate {
    shape: String,
    text: String,
    /// 0 when both points are at the refutation's endpoints, 1 otherwise.
    rank: u8,
}

fn candidates(prog: &Program, lib: &str, obs: &ObsLib, reason: &str) -> Vec<Candidate> {
    let nodes_text = format!("{{{}}}", prog.nodes.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "));
    let b = Builder { prog, obs, nodes_text, lib: lib.to_string() };
    let ends = endpoints(reason);
    let first = ends.first().copied();
    let last = ends.last().copied();
    // a point is (thread, position): insert before the call at `position`
    let points: Vec<(usize, usize)> =
        prog.threads.iter().enumerate().flat_map(|(t, th)| (0..=th.lines.len()).map(move |p| (t, p))).collect();
    // "before the first endpoint's call" / "after the last endpoint's call"
    let near = |pt: (usize, usize), e: Option<(usize, usize)>, after: bool| {
        e.is_some_and(|(t, c)| pt.0 == t && pt.1 == c + after as usize)
    };
    let puts: &[bool] = if obs.put.is_some() { &[false, true] } else { &[false] };
    let fences: &[bool] = if obs.fence.is_some() { &[false, true] } else { &[false] };
    let mut n = 0;
    // the abstract program itself first: its own returned values may already be an
    // outcome the specification forbids (e.g. a torn read, an O3 refutation)
    let bare = Builder { prog, obs, nodes_text: b.nodes_text.clone(), lib: b.lib.clone() };
    let mut out = vec![Candidate {
        shape: "the abstract program alone".to_string(),
        text: bare.render("observe-0", &[], &[], None).replacen(&format!(", {}\n", obs.name), "\n", 1),
        rank: 0,
    }];
    for &a in &points {
        for &bp in &points {
            let rank = if near(a, first, false) && near(bp, last, true) { 0 } else { 1 };
            let (ta, tb) = (&prog.threads[a.0], &prog.threads[bp.0]);
            for &fenced in fences {
                for &put in puts {
                    let fence = |v: Vec<String>, before: bool| -> Vec<String> {
                        match (fenced, before) {
                            (false, _) => v,
                            (true, false) => [v, vec![b.fence()]].concat(),
                            (true, true) => [vec![b.fence()], v].concat(),
                        }
                    };
                    let tag = format!("{}{}", if fenced { ", fenced" } else { "" }, if put { ", put" } else { "" });
                    let at = |pt: (usize, usize)| format!("{}@{}", prog.threads[pt.0].name, pt.1);
                    if a.0 != bp.0 || put {
                        if a.0 == bp.0 && bp.1 < a.1 {
                            // the read must come after the write in one thread
                        } else {
                            // MP: W y at a, R y at b (y at b's node)
                            let y = Loc { name: "oy", home: tb.node };
                            n += 1;
                            let ins = vec![
                                (a.0, a.1, fence(vec![b.write(&y, ta.node, put)], false)),
                                (bp.0, bp.1, fence(vec![b.read(&y, "o0")], true)),
                            ];
                            out.push(Candidate {
                                shape: format!("MP {} → {}{tag}", at(a), at(bp)),
                                text: b.render(&format!("observe-{n}"), &[&y], &ins, None),
                                rank,
                            });
                        }
                    }
                    if a.0 != bp.0 {
                        // LB: R y at a, W y at b (y at a's node)
                        let y = Loc { name: "oy", home: ta.node };
                        n += 1;
                        let ins = vec![
                            (a.0, a.1, fence(vec![b.read(&y, "o0")], true)),
                            (bp.0, bp.1, fence(vec![b.write(&y, tb.node, put)], false)),
                        ];
                        out.push(Candidate {
                            shape: format!("LB {} → {}{tag}", at(a), at(bp)),
                            text: b.render(&format!("observe-{n}"), &[&y], &ins, None),
                            rank,
                        });
                    }
                    if a.0 != bp.0 || a.1 <= bp.1 {
                        // SB: W y at a, R z at b, and O: W z; fence; R y
                        for &on in &prog.nodes {
                            let y = Loc { name: "oy", home: on };
                            let z = Loc { name: "oz", home: tb.node };
                            n += 1;
                            let ins = vec![
                                (a.0, a.1, fence(vec![b.write(&y, ta.node, put)], false)),
                                (bp.0, bp.1, fence(vec![b.read(&z, "o0")], true)),
                            ];
                            let o = vec![b.write(&z, on, false), b.fence(), b.read(&y, "o1")];
                            out.push(Candidate {
                                shape: format!("SB {} → {}, observer on node {on}{tag}", at(a), at(bp)),
                                text: b.render(&format!("observe-{n}"), &[&y, &z], &ins, Some((on, o))),
                                rank,
                            });
                        }
                    }
                }
            }
        }
    }
    // the refutation's endpoints first; the order is otherwise the generation order
    out.sort_by_key(|c| c.rank);
    out
}

/// Tries to observe the refutation whose abstract program is `program` and whose
/// reason is `reason`, within `budget`.
pub fn observe(
    imp: &Implementation,
    order: &StampOrder,
    program: &str,
    reason: &str,
    loop_bound: usize,
    budget: Duration,
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
    let observer = match observer_of(imp, order) {
        Ok(o) => o,
        Err(e) => {
            obs.note = Some(e);
            return obs;
        }
    };
    let Some(prog) = parse(program) else {
        obs.note = Some("the abstract program could not be read back".into());
        return obs;
    };
    obs.bound = format!(
        "the abstract program with `{}` calls ({}, {}{}{}) in the MP, LB and SB shapes at every position{}{}",
        observer.name,
        observer.write,
        observer.read,
        observer.put.map(|p| format!(", {p}")).unwrap_or_default(),
        observer.fence.map(|f| format!(", {}", f.0)).unwrap_or_default(),
        if observer.fence.is_some() { " (fenced or not" } else { " (" },
        if observer.put.is_some() { ", local write or put)" } else { ")" }
    );
    let cands = candidates(&prog, &imp.implements, &observer, reason);
    obs.candidates = cands.len();
    for c in cands {
        if start.elapsed() >= budget {
            obs.note = Some(format!("the time budget ({:.0} s) ran out", budget.as_secs_f64()));
            break;
        }
        obs.tried += 1;
        let r = match refine_client(imp, order, "observe", &c.text, loop_bound, true) {
            Ok(r) => r,
            Err(e) => {
                obs.errors += 1;
                obs.first_error.get_or_insert_with(|| e.to_string());
                continue;
            }
        };
        if r.verdict == crate::analyses::refine::ClientVerdict::Fail {
            let kind = if c.shape.starts_with("the abstract") {
                "abstract"
            } else {
                c.shape.split(' ').next().unwrap_or("client")
            };
            let name = format!("observe-{}-{}", imp.name, kind.to_lowercase());
            let text = c.text.replacen(&format!("test {}", first_word_after_test(&c.text)), &format!("test {name}"), 1);
            obs.client = Some(failing_text(&text, imp, &r));
            obs.name = Some(name);
            obs.shape = Some(c.shape);
            break;
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
                let mut o = observe(imp, order, &f.client, &f.reason, loop_bound, budget);
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

fn first_word_after_test(text: &str) -> &str {
    text.lines().find_map(|l| l.strip_prefix("test ")).unwrap_or("").trim()
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
    fn an_abstract_program_is_read_back() {
        let p = parse(
            "# x\ntest t\n\"d\"\nlibraries rbl\nthread T1 @ 1\nthread T2 @ 2\nring q : writer T1 readers T1\nT1:\n  r0 = Submit(q, [1])\n  r1 = Receive(q)\nT2:\n  r0 = Receive(q)\n",
        )
        .expect("parses");
        assert_eq!(p.threads.len(), 2);
        assert_eq!(p.threads[0].lines, vec!["r0 = Submit(q, [1])", "r1 = Receive(q)"]);
        assert_eq!(p.nodes, vec![1, 2]);
    }
}
