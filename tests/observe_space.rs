//! Issue 30, items 3, 5 and 6: the observation search of `mowgli obligations`
//! (`obligations::observe`) draws its observer calls from every method of the
//! observer library, on the parsed abstract program.
//!
//! * Under the stamp-order variant `fig10-I9-unordered.to`, I_SV's refuted O1 for GF
//!   is observed by the search itself (docs/sensitivity.md: a client needs a get, a
//!   GF and a read), and the client it writes fails on replay with `refine`.
//! * An independent brute force of the stated space at a small bound: every
//!   insertion of at most 2 observer calls (every method of the declaration of
//!   each observer library in scope, one library per client, every argument its
//!   parameter roles allow, work identifiers `_` or the thread's own with the
//!   methods waiting for one, built here from the signatures, sharing no code with
//!   the search) into the refutation's abstract program, each run through
//!   `refine`; the search finds an observing client exactly when the brute force
//!   does.

use mowgli_check::analyses::obligations::{self, observe, Obligation, Options};
use mowgli_check::analyses::refine::gen::Bounds;
use mowgli_check::analyses::refine::{refine_client, ClientVerdict};
use mowgli_check::lang::ast::Stmt;
use mowgli_check::lang::implementation::Implementation;
use mowgli_check::lang::print;
use mowgli_check::lang::syntax::Litmus;
use mowgli_core::{MethodSig, Role, StampOrder};
use mowgli_libs::catalogue::Catalogue;
use mowgli_libs::orders::default_order;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn order_of(variant: Option<&str>) -> StampOrder {
    let mut order = default_order();
    if let Some(v) = variant {
        let text = std::fs::read_to_string(root().join("specs/stamp-orders/variants").join(v)).expect("variant");
        order.tables.extend(StampOrder::parse(&text).unwrap_or_else(|e| panic!("{e}")).tables);
    }
    order
}

fn load(file: &str, order: &StampOrder) -> Implementation {
    Implementation::load(&root().join(file), order, &Catalogue::builtins()).unwrap_or_else(|e| panic!("{e}"))
}

/// The refutations of `imp` at `bounds`, with their observations.
fn refuted(imp: &Implementation, order: &StampOrder, bounds: &Bounds) -> obligations::Report {
    let programs = obligations::abstract_programs(imp, order, bounds).unwrap_or_else(|e| panic!("{e}"));
    let opts = Options { loop_bound: 4, ..Default::default() };
    obligations::check_clients(imp, order, &programs, &imp.map, &opts).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn i9_unordered_gf_refutation_is_observed_by_the_obligations_search() {
    let order = order_of(Some("fig10-I9-unordered.to"));
    let imp = load("specs/impls/isv.impl", &order);
    let mut r = refuted(&imp, &order, &Bounds::new("sv", 1, 1, 1));
    let i =
        r.failures.iter().position(|f| f.obligation == Obligation::O1 && f.methods == ["GF"]).unwrap_or_else(|| {
            panic!("O1 for GF not refuted: {:?}", r.failures.iter().map(|f| &f.reason).collect::<Vec<_>>())
        });
    let t = Instant::now();
    obligations::observe::observe_all(&imp, &order, &mut r, 4, Duration::from_secs(120));
    let o = &r.observations[i];
    let text = o.client.as_ref().unwrap_or_else(|| panic!("not observed: {o:?}"));
    println!(
        "observed in {:.1} s after {} of {} candidates: {}",
        t.elapsed().as_secs_f64(),
        o.tried,
        o.candidates,
        text
    );
    let replay = refine_client(&imp, &order, "observed", text, 4, false).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(replay.verdict, ClientVerdict::Fail, "{text}");
    // the expectation the client carries is an outcome the specification forbids
    let c = mowgli_check::analyses::litmus::check_text("observed", text, &order, &Catalogue::builtins())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!c.expectations.is_empty() && c.expectations.iter().all(|e| e.ok), "{text}");
}

/// An argument list per call, by parameter role (the space the module comment of
/// `obligations::observe` states): a location the caller's own when the role says
/// local (located memory), a source its own location or a literal, values `1..=1`,
/// a compared value `0..=1`, a work identifier `_` or the thread's one (written
/// [`WID`] here, named per thread when the client is built), which a method waiting
/// for one always takes; any node, any non-empty node set; no call copies a
/// location onto itself. Hidden methods (`#`) and those taking barriers, rings or
/// tuples are left out.
fn calls_of(
    lib: &str,
    sigs: &[MethodSig],
    placed: bool,
    node: i64,
    nodes: &[i64],
    homes: &[(String, i64)],
) -> Vec<Drawn> {
    let mut out = Vec::new();
    'm: for s in sigs {
        if s.name.starts_with('#') {
            continue;
        }
        let mut lists: Vec<(Vec<String>, Vec<String>)> = vec![(vec![], vec![])];
        for r in &s.roles {
            let own = |h: i64| !placed || h == node;
            let opts: Vec<(String, Option<String>)> = match r {
                Role::Loc { local, .. } => {
                    homes.iter().filter(|(_, h)| !local || own(*h)).map(|(n, _)| (n.clone(), Some(n.clone()))).collect()
                }
                Role::Src => homes
                    .iter()
                    .filter(|(_, h)| own(*h))
                    .map(|(n, _)| (n.clone(), Some(n.clone())))
                    .chain([("1".to_string(), None)])
                    .collect(),
                Role::Val => vec![("1".into(), None)],
                Role::Expected => vec![("0".into(), None), ("1".into(), None)],
                Role::Wid { awaited: false } => vec![("_".into(), None), (WID.into(), None)],
                Role::Wid { awaited: true } => vec![(WID.into(), None)],
                Role::Node { .. } => nodes.iter().map(|n| (n.to_string(), None)).collect(),
                Role::Nodes => (1u32..1 << nodes.len())
                    .map(|m| {
                        let set: Vec<String> =
                            (0..nodes.len()).filter(|i| m & (1 << i) != 0).map(|i| nodes[i].to_string()).collect();
                        (format!("{{{}}}", set.join(", ")), None)
                    })
                    .collect(),
                _ => continue 'm,
            };
            lists = lists
                .into_iter()
                .flat_map(|(a, l)| {
                    opts.iter().map(move |(o, loc)| {
                        let mut l2 = l.clone();
                        l2.extend(loc.clone());
                        ([a.clone(), vec![o.clone()]].concat(), l2)
                    })
                })
                .collect();
        }
        for (args, locs) in lists {
            if locs.len() == 2 && locs[0] == locs[1] {
                continue;
            }
            let wid = match args.iter().any(|a| a == WID) {
                false => Wid::None,
                true if s.roles.iter().any(|r| matches!(r, Role::Wid { awaited: true })) => Wid::Waits,
                true => Wid::Names,
            };
            out.push((format!("{lib}.{}({})", s.name, args.join(", ")), s.returns, locs, wid));
        }
    }
    out
}

/// The placeholder of a thread's work identifier in a call's text.
const WID: &str = "WID";

/// What a call does with its thread's work identifier.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Wid {
    None,
    Names,
    Waits,
}

/// A call: its text, whether it returns a value, the locations it names, its use
/// of the work identifier.
type Drawn = (String, bool, Vec<String>, Wid);
/// A call inserted at a slot (an index into the program's positions).
type Inserted = (usize, String, bool, Vec<String>, Wid);
/// The inserted calls, and the new thread's node and call.
type Candidate = (Vec<Inserted>, Option<(i64, Drawn)>);

/// The brute force: every client of the abstract program `p` with 1 or 2 observer
/// calls of library `obs` (at least one inserted in a thread of `p`, the other
/// inserted too or alone in a new thread on a node of `p`), over `locs` observer
/// locations homed on a node of `p` or on one fresh node; a call waiting for the
/// thread's work identifier only after a call of the thread named it (one named
/// and never waited for is kept: wider than the search). Returns the first
/// failing client, the clients run, and the errors.
fn brute_force(
    imp: &Implementation,
    order: &StampOrder,
    p: &Litmus,
    obs: &str,
    locs: usize,
) -> (Option<String>, usize, usize) {
    let l = imp.catalogue.library(obs, order).unwrap_or_else(|e| panic!("{e}"));
    let sigs = l.methods().to_vec();
    let placed = !l.memory().replicated;
    assert!(p.rings.is_empty());
    let lib = &p.libraries[0].text;
    let lmethods: Vec<&str> =
        imp.catalogue.library(lib, order).expect("lib").methods().iter().map(|m| m.name).collect();
    // the program's threads as lines, its calls qualified
    let threads: Vec<(String, i64, Vec<String>)> = p
        .threads
        .iter()
        .map(|(t, n)| {
            let body = &p.bodies.iter().find(|(b, _)| b.text == t.text).expect("body").1;
            let lines = body
                .iter()
                .map(|st: &Stmt| {
                    let s = print::statement(st);
                    let (lhs, call) =
                        s.split_once(" = ").map_or((String::new(), s.as_str()), |(a, c)| (format!("{a} = "), c));
                    let m = call.split('(').next().unwrap_or("");
                    if lmethods.contains(&m) {
                        format!("{lhs}{lib}.{call}")
                    } else {
                        s.clone()
                    }
                })
                .collect();
            (t.text.clone(), *n, lines)
        })
        .collect();
    let mut nodes: Vec<i64> = threads.iter().map(|t| t.1).collect();
    nodes.sort();
    nodes.dedup();
    let fresh = nodes[nodes.len() - 1] + 1;
    let dom: Vec<i64> = if placed { nodes.iter().copied().chain([fresh]).collect() } else { vec![nodes[0]] };
    let names = ["a", "b"];
    let mut homesets: Vec<Vec<(String, i64)>> = vec![vec![]];
    for name in names.iter().take(locs) {
        homesets = homesets
            .into_iter()
            .flat_map(|h| dom.iter().map(move |&d| [h.clone(), vec![(name.to_string(), d)]].concat()))
            .collect();
    }
    let slots: Vec<(usize, usize)> =
        threads.iter().enumerate().flat_map(|(t, th)| (0..=th.2.len()).map(move |p| (t, p))).collect();
    let (mut run, mut errors) = (0, 0);
    for homes in &homesets {
        let on_fresh = homes.iter().any(|(_, h)| *h == fresh);
        let mut cn = nodes.clone();
        if on_fresh {
            cn.push(fresh);
        }
        let alpha = |n: i64| calls_of(obs, &sigs, placed, n, &cn, homes);
        // (slot, call) insertions, and the new thread's (node, call)
        let mut cands: Vec<Candidate> = Vec::new();
        for (i, &(t, _)) in slots.iter().enumerate() {
            for c in alpha(threads[t].1) {
                let first = (i, c.0.clone(), c.1, c.2.clone(), c.3);
                cands.push((vec![first.clone()], None));
                for (j, &(u, _)) in slots.iter().enumerate().skip(i) {
                    for d in alpha(threads[u].1) {
                        cands.push((vec![first.clone(), (j, d.0, d.1, d.2, d.3)], None));
                    }
                }
                for &n in &nodes {
                    for d in alpha(n) {
                        cands.push((vec![first.clone()], Some((n, d))));
                    }
                }
            }
        }
        for (ins, extra) in cands {
            // a wait only after a call of its thread named the identifier
            let named_first = |t: usize| {
                let mut named = false;
                ins.iter().filter(|x| slots[x.0].0 == t).all(|x| {
                    named |= x.4 == Wid::Names;
                    x.4 != Wid::Waits || named
                })
            };
            if !(0..threads.len()).all(named_first) || extra.as_ref().is_some_and(|e| e.1 .3 == Wid::Waits) {
                continue;
            }
            let mut used: Vec<String> = ins.iter().flat_map(|x| x.3.clone()).collect();
            used.extend(extra.iter().flat_map(|e| e.1 .2.clone()));
            // the fresh node only with a location on it
            if on_fresh && !homes.iter().any(|(n, h)| *h == fresh && used.contains(n)) {
                continue;
            }
            let mut s = format!("test bf\nlibraries {lib}, {obs}\n");
            for (t, n, _) in &threads {
                s += &format!("thread {t} @ {n}\n");
            }
            let extra_name = format!("T{}", threads.len() + 1);
            if let Some((n, _)) = &extra {
                s += &format!("thread {extra_name} @ {n}\n");
            }
            for d in &p.locs {
                s += &format!("loc {}{}\n", d.name.text, d.node.map(|n| format!(" @ {n}")).unwrap_or_default());
            }
            for (z, ts) in &p.barriers {
                let ts: Vec<&str> = ts.iter().map(|t| t.text.as_str()).collect();
                s += &format!("barrier {} : {}\n", z.text, ts.join(", "));
            }
            for (n, h) in homes.iter().filter(|(n, _)| used.contains(n)) {
                s += &if placed { format!("loc {n} @ {h}\n") } else { format!("loc {n}\n") };
            }
            for (ti, (t, _, lines)) in threads.iter().enumerate() {
                s += &format!("{t}:\n");
                let mut reg = 0;
                for pos in 0..=lines.len() {
                    for (slot, call, returns, _, _) in &ins {
                        if slots[*slot] == (ti, pos) {
                            let lhs = if *returns { format!("q{reg} = ") } else { String::new() };
                            reg += usize::from(*returns);
                            s += &format!("  {lhs}{}\n", call.replace(WID, &format!("wz{ti}")));
                        }
                    }
                    if let Some(l) = lines.get(pos) {
                        s += &format!("  {l}\n");
                    }
                }
            }
            if let Some((_, (call, returns, _, _))) = &extra {
                let call = call.replace(WID, &format!("wz{}", threads.len()));
                s += &format!("{extra_name}:\n  {}{call}\n", if *returns { "q0 = " } else { "" });
            }
            run += 1;
            match refine_client(imp, order, "bf", &s, 4, true) {
                Ok(r) if r.verdict == ClientVerdict::Fail => return (Some(s), run, errors),
                Ok(_) => {}
                Err(e) => {
                    errors += 1;
                    if errors == 1 {
                        println!("brute force: {e}\n{s}");
                    }
                }
            }
        }
    }
    (None, run, errors)
}

/// The base libraries a client of `imp` may call besides it, by their
/// declarations: the observer the generator's defaults name for the implemented
/// library, and every library the implementation uses, that has locations, no
/// barriers or rings, and a method returning a value.
fn in_scope(imp: &Implementation, order: &StampOrder) -> Vec<String> {
    let default = Bounds::in_catalogue(&imp.implements, &imp.catalogue, 1, 1, 1).observer;
    let mut out: Vec<String> = Vec::new();
    for l in default.iter().chain(&imp.uses) {
        let lib = imp.catalogue.library(l, order).unwrap_or_else(|e| panic!("{e}"));
        let roles = || lib.methods().iter().flat_map(|m| m.roles.iter());
        let locs = roles().any(|r| matches!(r, Role::Loc { .. } | Role::Src));
        let objects = roles().any(|r| matches!(r, Role::Barrier(_) | Role::Ring(_)));
        if *l != imp.implements && locs && !objects && lib.methods().iter().any(|m| m.returns) && !out.contains(l) {
            out.push(l.clone());
        }
    }
    out
}

/// The search over `space` and the brute force agree on the refutation of
/// `obligation` for `method` of `file` (under `variant`) at `bounds`.
fn agree(file: &str, variant: Option<&str>, bounds: &Bounds, method: &str, locs: usize) {
    let order = order_of(variant);
    let imp = load(file, &order);
    let r = refuted(&imp, &order, bounds);
    let f = r
        .failures
        .iter()
        .find(|f| f.methods.iter().any(|m| m == method))
        .unwrap_or_else(|| panic!("{file}: nothing refuted for {method}"));
    let p = f.test.clone().expect("the parsed abstract program");
    agree_on(&imp, &order, &p, &f.reason, variant.unwrap_or("Fig. 10"), locs);
}

/// The search (2 calls, `locs` locations, no wide part) and the brute force agree on
/// abstract program `p` with reason `reason`.
fn agree_on(imp: &Implementation, order: &StampOrder, p: &Litmus, reason: &str, what: &str, locs: usize) {
    let (imp, order, file) = (imp, order, &imp.file);
    let space = observe::Space { calls: 2, locs, wide_thread: 0, ..Default::default() };
    let t = Instant::now();
    let o = observe::observe_in(imp, order, p, reason, 4, Duration::from_secs(600), &space);
    let t_search = t.elapsed();
    assert!(o.note.is_none() && o.errors == 0, "{o:?}");
    let scope = in_scope(imp, order);
    let t = Instant::now();
    let (mut found, mut run, mut errors) = (None, 0, 0);
    for obs in &scope {
        assert!(o.bound.contains(&format!("`{obs}` calls")), "{}", o.bound);
        // a library with a method waiting for a work identifier has it in the space
        let waits = imp.catalogue.library(obs, order).expect("lib").methods().iter().any(|m| m.awaits());
        let part = o.bound.split("; or with ").find(|p| p.contains(&format!("`{obs}` calls"))).unwrap_or("");
        assert_eq!(waits, part.contains("or up to 1 per thread"), "{}", o.bound);
        let (f, r, e) = brute_force(imp, order, p, obs, locs);
        (run, errors) = (run + r, errors + e);
        if f.is_some() {
            found = f;
            break;
        }
    }
    println!(
        "{file} {} ({what}, {locs} location(s), observers {scope:?}): search {} ({} of {} candidates, {:.1} s); brute force {} ({run} clients, {errors} errors, {:.1} s)",
        p.name,
        if o.client.is_some() { "observes" } else { "does not observe" },
        o.tried,
        o.candidates,
        t_search.as_secs_f64(),
        if found.is_some() { "observes" } else { "does not observe" },
        t.elapsed().as_secs_f64()
    );
    assert_eq!(errors, 0, "clients of the space that refine rejects");
    assert_eq!(o.client.is_some(), found.is_some(), "search: {:?}\nbrute force: {:?}", o.client, found);
    if o.client.is_none() {
        // every candidate tried, and none outside the brute force's clients (which
        // repeat some: `a` and `b` swapped; the search's count has the program alone)
        assert_eq!(o.tried, o.candidates, "{o:?}");
        assert!(o.candidates <= run + 1, "{} candidates, {run} brute-force clients", o.candidates);
    }
}

/// Observable within two calls: I_SV's GF without its wait (O1 for GF).
#[test]
fn brute_force_agrees_on_an_observable_refutation() {
    for locs in [1, 2] {
        agree("specs/impls/mutants/isv_gf_nowait.impl", None, &Bounds::new("sv", 1, 1, 1), "GF", locs);
    }
}

/// Not observable within two calls: I_SV's O1 for GF under I9 unordered (it takes
/// a write, a get and a read, above).
#[test]
fn brute_force_agrees_on_the_i9_refutation_at_two_calls() {
    for locs in [1, 2] {
        agree("specs/impls/isv.impl", Some("fig10-I9-unordered.to"), &Bounds::new("sv", 1, 1, 1), "GF", locs);
    }
}

/// A correct implementation (I_SV under Fig. 10: every obligation holds, so by Thm.
/// 3.14 no client observes anything): the first abstract program with two threads
/// on two nodes, no reason (no endpoints); neither the search nor the brute force
/// finds an observing client (over one and over two locations).
fn correct_two_threads(locs: usize) {
    let order = order_of(None);
    let imp = load("specs/impls/isv.impl", &order);
    let programs = obligations::abstract_programs(&imp, &order, &Bounds::new("sv", 2, 2, 1)).expect("programs");
    let (_, p) = programs
        .iter()
        .find(|(_, t)| t.threads.len() == 2 && t.threads[0].1 != t.threads[1].1)
        .expect("a two-node program");
    agree_on(&imp, &order, p, "", "Fig. 10", locs);
}

#[test]
fn brute_force_agrees_on_a_correct_two_thread_program() {
    correct_two_threads(1);
}

#[test]
fn brute_force_agrees_on_a_correct_two_thread_program_two_locations() {
    correct_two_threads(2);
}

/// Two observer libraries in scope: I_BAL uses `sv`, and the generator observes
/// `bal` through `rdmawait`. Its first one-call abstract program (every obligation
/// holds under Fig. 10): neither the search nor the brute force observes, over
/// the calls of both libraries.
#[test]
fn brute_force_agrees_on_a_bal_program_with_two_observer_libraries() {
    let order = order_of(None);
    let imp = load("specs/impls/ibal.impl", &order);
    assert_eq!(in_scope(&imp, &order).len(), 2, "{:?}", in_scope(&imp, &order));
    let programs = obligations::abstract_programs(&imp, &order, &Bounds::new("bal", 1, 1, 1)).expect("programs");
    let (_, p) = programs.first().expect("a program");
    agree_on(&imp, &order, p, "", "Fig. 10", 1);
}

/// The same with a refutation: I_BAL without its local GF (O1 for BAR).
#[test]
fn brute_force_agrees_on_a_bal_refutation_with_two_observer_libraries() {
    agree("specs/impls/mutants/ibal_nolocalgf.impl", None, &Bounds::new("bal", 1, 1, 1), "BAR", 1);
}

/// Work identifiers widen the space by the calls that name one a later call of
/// the thread waits for: on I_SV's I9 refutation (one call, one node) the default
/// space without them is contained in the one with them, counted.
#[test]
fn work_identifiers_widen_the_default_space() {
    let order = order_of(Some("fig10-I9-unordered.to"));
    let imp = load("specs/impls/isv.impl", &order);
    let r = refuted(&imp, &order, &Bounds::new("sv", 1, 1, 1));
    let f = r.failures.iter().find(|f| f.methods == ["GF"]).expect("O1 for GF refuted");
    let p = f.test.clone().expect("the parsed abstract program");
    let count = |wids: usize| {
        let space = observe::Space { wids, ..Default::default() };
        let o = observe::count_in(&imp, &order, &p, &f.reason, &space).expect("a search");
        println!("work identifiers {wids}: {} candidates; {}", o.candidates, o.bound);
        o
    };
    let (without, with) = (count(0), count(1));
    assert!(with.candidates > without.candidates);
    assert!(without.bound.contains("work identifiers `_`)") && with.bound.contains("or up to 1 per thread"));
}
