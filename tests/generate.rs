//! `mowgli generate` (bounded-exhaustive litmus generation) and the
//! distinguishing-test search of `mowgli explore --search` (issue 5, parts 1, 2b).
//!
//! The canonical forms of the generator are checked against an independent
//! canonicalisation written here: a program is parsed from its litmus text into
//! threads (node, calls), and its normal form under a renaming of threads, nodes,
//! locations and values is a string; the canonical form is the least over every
//! renaming, found by brute force.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use mowgli_check::analyses::explore::{self, Model, SearchOptions};
use mowgli_check::analyses::generate::{self, SuiteBounds, SuiteOptions};
use mowgli_check::analyses::litmus;
use mowgli_check::analyses::refine::gen::{Generator, SizeClass};
use mowgli_libs::catalogue::Catalogue;
use mowgli_libs::orders::default_order;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn bounds(threads: usize, nodes: usize, instrs: usize, locs: usize, values: usize) -> SuiteBounds {
    SuiteBounds { threads, nodes, instrs, locs, values, min_threads: 2 }
}

fn classes(lib: &str, b: &SuiteBounds) -> (Generator, Vec<SizeClass>) {
    let g = Generator::new(lib, &default_order(), &b.gen_bounds(lib, &Catalogue::builtins())).expect("generator");
    let cs = (1..=g.max_size()).map(|s| g.class_par(s, 2)).collect();
    (g, cs)
}

// ---------------------------------------------------------------------------
// An independent model of straight-line RDMA programs
// ---------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct Instr {
    dest: Option<String>,
    method: String,
    args: Vec<String>,
}

/// Threads (name, node, calls) and declared locations (name, node).
#[derive(Clone, Debug, Default)]
struct Prog {
    threads: Vec<(String, i64, Vec<Instr>)>,
    locs: Vec<(String, i64)>,
}

/// Parses the base format's straight-line programs (`thread`, `loc X @ N`, bodies of
/// `[R =] Method(ARG, ...)` lines); everything else is skipped.
fn parse(text: &str) -> Prog {
    let mut p = Prog::default();
    let mut body: Option<usize> = None;
    for raw in text.lines() {
        let l = raw.split('#').next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        let word = l.split_whitespace().next().unwrap_or("");
        if ["test", "libraries", "expect", "thread", "loc"].contains(&word) || l.starts_with('"') {
            body = None;
            let parts: Vec<&str> = l.split_whitespace().collect();
            if word == "thread" {
                p.threads.push((parts[1].to_string(), parts[3].parse().expect("node"), Vec::new()));
            } else if word == "loc" {
                p.locs.push((parts[1].to_string(), parts[3].parse().expect("node")));
            }
            continue;
        }
        if let Some(t) = l.strip_suffix(':') {
            body = Some(p.threads.iter().position(|x| x.0 == t).expect("declared thread"));
            continue;
        }
        let (dest, call) = match l.split_once(" = ") {
            Some((d, c)) => (Some(d.trim().to_string()), c),
            None => (None, l),
        };
        let (method, args) = call.split_once('(').expect("a call");
        let args: Vec<String> =
            args.trim_end_matches(')').split(',').map(|a| a.trim().to_string()).filter(|a| !a.is_empty()).collect();
        let t = body.expect("a call inside a body");
        p.threads[t].2.push(Instr { dest, method: method.trim().to_string(), args });
    }
    p
}

fn is_node_arg(method: &str) -> bool {
    matches!(method, "Poll" | "Rfence")
}

fn perms(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in perms(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

/// A renaming: thread order, and maps of node numbers, location names, values.
struct Renaming {
    threads: Vec<usize>,
    nodes: BTreeMap<i64, usize>,
    locs: BTreeMap<String, usize>,
    vals: BTreeMap<i64, usize>,
}

/// The used locations, present nodes and values of a program.
fn items(p: &Prog) -> (Vec<String>, Vec<i64>, Vec<i64>) {
    let mut used = Vec::new();
    let mut vals = BTreeSet::new();
    for (_, _, calls) in &p.threads {
        for c in calls {
            for a in &c.args {
                if p.locs.iter().any(|l| l.0 == *a) {
                    if !used.contains(a) {
                        used.push(a.clone());
                    }
                } else if let (Ok(v), false) = (a.parse::<i64>(), is_node_arg(&c.method)) {
                    vals.insert(v);
                }
            }
        }
    }
    let mut nodes: BTreeSet<i64> = p.threads.iter().map(|t| t.1).collect();
    nodes.extend(p.locs.iter().filter(|l| used.contains(&l.0)).map(|l| l.1));
    (used, nodes.into_iter().collect(), vals.into_iter().collect())
}

/// The normal form of `p` under renaming `r`: registers and names erased.
fn normal(p: &Prog, r: &Renaming) -> String {
    let mut s = String::new();
    for &t in &r.threads {
        let (_, node, calls) = &p.threads[t];
        s += &format!("T@{}:", r.nodes[node]);
        for c in calls {
            let args: Vec<String> = c
                .args
                .iter()
                .map(|a| match (r.locs.get(a), a.parse::<i64>()) {
                    (Some(l), _) => format!("L{l}"),
                    (None, Ok(n)) if is_node_arg(&c.method) => format!("N{}", r.nodes[&n]),
                    (None, Ok(v)) => format!("V{}", r.vals[&v]),
                    _ => a.clone(),
                })
                .collect();
            s += &format!("{}{}({});", if c.dest.is_some() { "r=" } else { "" }, c.method, args.join(","));
        }
        s += "|";
    }
    let mut homes: Vec<(usize, usize)> =
        p.locs.iter().filter_map(|(n, h)| r.locs.get(n).map(|&l| (l, r.nodes[h]))).collect();
    homes.sort();
    s + &format!("{homes:?}")
}

/// Every renaming of `p` (threads, present nodes, used locations, values).
fn renamings(p: &Prog) -> Vec<Renaming> {
    let (used, nodes, vals) = items(p);
    let mut out = Vec::new();
    for tp in perms(p.threads.len()) {
        for np in perms(nodes.len()) {
            for lp in perms(used.len()) {
                for vp in perms(vals.len()) {
                    out.push(Renaming {
                        threads: tp.clone(),
                        nodes: nodes.iter().zip(&np).map(|(&n, &i)| (n, i + 1)).collect(),
                        locs: used.iter().zip(&lp).map(|(l, &i)| (l.clone(), i)).collect(),
                        vals: vals.iter().zip(&vp).map(|(&v, &i)| (v, i + 1)).collect(),
                    });
                }
            }
        }
    }
    out
}

/// The canonical form: the least normal form over every renaming.
fn canonical(p: &Prog) -> String {
    renamings(p).iter().map(|r| normal(p, r)).min().expect("a renaming")
}

/// `p` renamed by `r`, as litmus text over `lib` (locations named by `loc_names`).
fn render(p: &Prog, r: &Renaming, lib: &str, loc_names: &[&str], reg_prefix: &str) -> String {
    let mut s = format!("test renamed\nlibraries {lib}\n");
    for (i, &t) in r.threads.iter().enumerate() {
        s += &format!("thread T{} @ {}\n", i + 1, r.nodes[&p.threads[t].1]);
    }
    for (n, h) in &p.locs {
        if let Some(&l) = r.locs.get(n) {
            s += &format!("loc {} @ {}\n", loc_names[l], r.nodes[h]);
        }
    }
    for (i, &t) in r.threads.iter().enumerate() {
        s += &format!("T{}:\n", i + 1);
        let mut reg = 0;
        for c in &p.threads[t].2 {
            let args: Vec<String> = c
                .args
                .iter()
                .map(|a| match (r.locs.get(a), a.parse::<i64>()) {
                    (Some(&l), _) => loc_names[l].to_string(),
                    (None, Ok(n)) if is_node_arg(&c.method) => r.nodes[&n].to_string(),
                    (None, Ok(v)) => r.vals[&v].to_string(),
                    _ => a.clone(),
                })
                .collect();
            let lhs = if c.dest.is_some() {
                reg += 1;
                format!("{reg_prefix}{} = ", reg - 1)
            } else {
                String::new()
            };
            s += &format!("  {lhs}{}({})\n", c.method, args.join(", "));
        }
    }
    s
}

// ---------------------------------------------------------------------------
// Canonicalisation
// ---------------------------------------------------------------------------

/// Every renaming of every generated program (threads, nodes, locations with their
/// names, values, register names) has the generator's canonical key of the program.
#[test]
fn canonical_key_is_invariant_under_renaming() {
    let b = bounds(2, 2, 2, 2, 2);
    let (g, cs) = classes("rdmatso", &b);
    let mut checked = 0;
    for c in &cs {
        // every program of the small classes, a sample of the large one
        let step = (c.distinct() / 400).max(1);
        for i in (0..c.distinct()).step_by(step) {
            let p = parse(&g.render(c, i, "t"));
            assert_eq!(g.canonical_key(&g.render(c, i, "t")).as_deref(), Ok(c.key(i)));
            for r in renamings(&p) {
                let text = render(&p, &r, "rdmatso", &["q", "p"], "reg");
                let k = g.canonical_key(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
                assert_eq!(k, c.key(i), "renamed program has another key:\n{text}");
                checked += 1;
            }
        }
    }
    assert!(checked > 5_000, "{checked}");
}

/// The generator's counts against an independent enumeration: every labelled
/// program of the documented grammar (`generate` module documentation) built here
/// call by call, reduced by the brute-force canonical form above.
#[test]
fn distinct_counts_match_a_naive_enumeration() {
    for (instrs, values) in [(2, 1), (1, 2)] {
        let b = bounds(2, 2, instrs, 2, values);
        let (g, cs) = classes("rdmatso", &b);
        let mut generator_forms = BTreeSet::new();
        for c in &cs {
            for i in 0..c.distinct() {
                generator_forms.insert(canonical(&parse(&g.render(c, i, "t"))));
            }
        }
        let distinct: usize = cs.iter().map(|c| c.distinct()).sum();
        assert_eq!(generator_forms.len(), distinct, "two generated programs are renamings of each other");
        let naive = naive_forms(2, 2, instrs, 2, values as i64);
        assert_eq!(naive.len(), distinct, "instrs {instrs}, values {values}");
        assert_eq!(naive, generator_forms);
    }
}

/// Every straight-line `rdmatso` program with exactly 2 threads, nodes `1..=k`
/// (`k ≤ nodes`), `locs` locations placed on any node, `1..=instrs` calls per
/// thread, kept by the documented filter, as canonical forms.
fn naive_forms(threads: usize, nodes: i64, instrs: usize, locs: usize, values: i64) -> BTreeSet<String> {
    let names = ["x", "y", "w"];
    let mut out = BTreeSet::new();
    for k in 1..=nodes {
        let tuples = |n: usize| -> Vec<Vec<i64>> {
            let mut v: Vec<Vec<i64>> = vec![vec![]];
            for _ in 0..n {
                v = v.into_iter().flat_map(|p| (1..=k).map(move |x| [p.clone(), vec![x]].concat())).collect();
            }
            v
        };
        for tnodes in tuples(threads) {
            for homes in tuples(locs) {
                let home = |l: &str| homes[names.iter().position(|n| *n == l).expect("loc")];
                // the calls a thread on node n may make
                let alphabet = |n: i64| -> Vec<Instr> {
                    let mut a = Vec::new();
                    let call = |m: &str, args: Vec<String>, ret: bool| Instr {
                        dest: ret.then(|| "r".to_string()),
                        method: m.into(),
                        args,
                    };
                    let local: Vec<String> =
                        names[..locs].iter().filter(|l| home(l) == n).map(|l| l.to_string()).collect();
                    let remote: Vec<String> =
                        names[..locs].iter().filter(|l| home(l) != n).map(|l| l.to_string()).collect();
                    for x in &local {
                        a.push(call("Read", vec![x.clone()], true));
                        for v in 1..=values {
                            a.push(call("Write", vec![x.clone(), v.to_string()], false));
                            for v2 in 1..=values {
                                a.push(call("CAS", vec![x.clone(), v.to_string(), v2.to_string()], true));
                            }
                        }
                        for y in &remote {
                            a.push(call("Get", vec![x.clone(), y.clone()], false));
                        }
                    }
                    a.push(call("Mfence", vec![], false));
                    for x in &remote {
                        for y in &local {
                            a.push(call("Put", vec![x.clone(), y.clone()], false));
                        }
                        for v in 1..=values {
                            a.push(call("Put", vec![x.clone(), v.to_string()], false));
                        }
                    }
                    for m in (1..=k).filter(|&m| m != n) {
                        a.push(call("Poll", vec![m.to_string()], false));
                        a.push(call("Rfence", vec![m.to_string()], false));
                    }
                    a
                };
                let seqs = |n: i64| -> Vec<Vec<Instr>> {
                    let alpha = alphabet(n);
                    let mut all = Vec::new();
                    let mut cur: Vec<Vec<Instr>> = vec![vec![]];
                    for _ in 0..instrs {
                        cur = cur
                            .into_iter()
                            .flat_map(|s| alpha.iter().map(move |c| [s.clone(), vec![c.clone()]].concat()))
                            .collect();
                        all.extend(cur.iter().cloned());
                    }
                    all
                };
                // every poll polls an outstanding put or get towards its node
                let polls_ok = |calls: &Vec<Instr>| {
                    let mut pending = BTreeMap::new();
                    calls.iter().all(|c| match c.method.as_str() {
                        "Put" => {
                            *pending.entry(home(&c.args[0])).or_insert(0) += 1;
                            true
                        }
                        "Get" => {
                            *pending.entry(home(&c.args[1])).or_insert(0) += 1;
                            true
                        }
                        "Poll" => {
                            let n: i64 = c.args[0].parse().expect("node");
                            match pending.get_mut(&n) {
                                Some(k) if *k > 0 => {
                                    *k -= 1;
                                    true
                                }
                                _ => false,
                            }
                        }
                        _ => true,
                    })
                };
                let s0: Vec<Vec<Instr>> = seqs(tnodes[0]).into_iter().filter(polls_ok).collect();
                let s1: Vec<Vec<Instr>> = seqs(tnodes[1]).into_iter().filter(polls_ok).collect();
                for a in &s0 {
                    for b in &s1 {
                        let p = Prog {
                            threads: vec![("T1".into(), tnodes[0], a.clone()), ("T2".into(), tnodes[1], b.clone())],
                            locs: names[..locs].iter().map(|l| (l.to_string(), home(l))).collect(),
                        };
                        // nodes 1..=k are exactly those of the threads and used locations
                        let (_, present, _) = items(&p);
                        if present != (1..=k).collect::<Vec<_>>() || !interacts(&p) {
                            continue;
                        }
                        out.insert(canonical(&p));
                    }
                }
            }
        }
    }
    out
}

/// The documented filter: the two threads name a common location one of them writes.
fn interacts(p: &Prog) -> bool {
    let sets = |t: usize| {
        let mut named = BTreeSet::new();
        let mut written = BTreeSet::new();
        for c in &p.threads[t].2 {
            for (i, a) in c.args.iter().enumerate() {
                if p.locs.iter().any(|l| l.0 == *a) {
                    named.insert(a.clone());
                    if i == 0 && ["Write", "CAS", "Put", "Get"].contains(&c.method.as_str()) {
                        written.insert(a.clone());
                    }
                }
            }
        }
        (named, written)
    };
    let (n0, w0) = sets(0);
    let (n1, w1) = sets(1);
    n0.intersection(&w1).next().is_some() || n1.intersection(&w0).next().is_some()
}

// ---------------------------------------------------------------------------
// Suites
// ---------------------------------------------------------------------------

fn suite(libs: &[&str], b: SuiteBounds) -> (generate::SuiteReport, Vec<generate::SuiteTest>) {
    let opts = SuiteOptions {
        libs: libs.iter().map(|l| l.to_string()).collect(),
        bounds: b,
        max_tests: None,
        jobs: 2,
        model: "the default stamp order".into(),
        partition: mowgli_check::analyses::refine::gen::Partition::ALL,
    };
    generate::generate_suite(&opts, &default_order(), &Catalogue::builtins(), &|_| {}).expect("generates")
}

/// Every generated file re-checks with the litmus engine (its expectations pin the
/// outcome set), for each supported library.
#[test]
fn generated_files_recheck() {
    let order = default_order();
    for (lib, b) in [
        ("rdmatso", bounds(2, 2, 2, 2, 1)),
        ("rdmatso_nopcie", bounds(2, 2, 1, 2, 2)),
        ("rdmawait", bounds(2, 2, 1, 2, 1)),
        ("sv", bounds(2, 2, 2, 1, 1)),
    ] {
        let (rep, tests) = suite(&[lib], b);
        assert_eq!(rep.error_count, 0, "{:?}", rep.errors);
        assert!(rep.complete && rep.tests == tests.len() && rep.tests > 10, "{lib}");
        // the grammar leaves out programs without executions (e.g. a poll with nothing to poll)
        assert_eq!((rep.no_execution, rep.tests), (0, rep.distinct), "{lib}");
        assert!(rep.generated as usize > rep.distinct, "{lib}: no reduction");
        // a sample, to keep the test short
        for t in tests.iter().step_by((tests.len() / 300).max(1)) {
            let r = litmus::check_text(&t.name, &t.text, &order, &Catalogue::builtins())
                .unwrap_or_else(|e| panic!("{e}\n{}", t.text));
            assert!(r.all_ok(), "{}", t.text);
            assert_eq!(r.outcomes.len(), t.outcomes, "{}", t.text);
            assert_eq!(r.expectations.len(), t.outcomes + 1);
        }
    }
}

/// `--max-tests` stops early, smallest first: the tests are a prefix of the full run.
#[test]
fn max_tests_is_a_prefix() {
    let (_, all) = suite(&["rdmatso"], bounds(2, 2, 2, 2, 1));
    let opts = SuiteOptions {
        libs: vec!["rdmatso".into()],
        bounds: bounds(2, 2, 2, 2, 1),
        max_tests: Some(50),
        jobs: 2,
        model: "the default stamp order".into(),
        partition: mowgli_check::analyses::refine::gen::Partition::ALL,
    };
    let (rep, some) =
        generate::generate_suite(&opts, &default_order(), &Catalogue::builtins(), &|_| {}).expect("generates");
    assert!(!rep.complete);
    assert_eq!(some.len(), 50);
    for (a, b) in some.iter().zip(&all) {
        assert_eq!(a.text, b.text);
    }
}

/// The generated tests (2 threads, 2 calls each) that are paper tests up to
/// renaming (RDMA paper, as transcribed in `specs/litmus/rdma`): the paper's expectations, translated by
/// the renaming, hold on the generated program, and agree with its computed
/// outcome set (an allowed paper outcome is among them, a forbidden one is not).
#[test]
fn some_generated_tests_are_paper_tests() {
    let order = default_order();
    // every class up to 4 calls (2 + 2)
    let (g, cs) = classes("rdmatso", &bounds(2, 2, 2, 2, 1));
    let mut found = Vec::new();
    for f in litmus::collect(&[root().join("specs/litmus/rdma")]).expect("corpus") {
        let text = std::fs::read_to_string(&f).expect("readable");
        let Ok(key) = g.canonical_key(&text) else { continue };
        let p = parse(&text);
        let size: usize = p.threads.iter().map(|t| t.2.len()).sum();
        let Some(class) = cs.get(size.wrapping_sub(1)) else { continue };
        let Some(i) = class.position(&key) else { continue };
        let name = f.file_stem().and_then(|s| s.to_str()).unwrap_or("?").to_string();
        let gen_text = g.render(class, i, &name);
        // the renaming from the paper program onto the generated one
        let gp = parse(&gen_text);
        let (_, gnodes, gvals) = items(&gp);
        let ident = Renaming {
            threads: (0..gp.threads.len()).collect(),
            nodes: gnodes.iter().map(|&n| (n, n as usize)).collect(),
            locs: gp
                .locs
                .iter()
                .map(|(n, _)| (n.clone(), ["x", "y", "w"].iter().position(|x| x == n).expect("generated name")))
                .collect(),
            vals: gvals.iter().map(|&v| (v, v as usize)).collect(),
        };
        let target = normal(&gp, &ident);
        let r = renamings(&p).into_iter().find(|r| normal(&p, r) == target).expect("a renaming onto it");
        // translate the paper's expectations: T<i>:<reg> and location names
        let mut regs: BTreeMap<String, String> = BTreeMap::new();
        for (new_t, &old_t) in r.threads.iter().enumerate() {
            let (tname, _, calls) = &p.threads[old_t];
            let mut k = 0;
            for c in calls {
                if let Some(d) = &c.dest {
                    regs.insert(format!("{tname}:{d}"), format!("T{}:r{k}", new_t + 1));
                    k += 1;
                }
            }
        }
        let loc_names = ["x", "y", "w"];
        let translate = |cond: &str| -> String {
            let mut out = String::new();
            let mut tok = String::new();
            let flush = |tok: &mut String, out: &mut String| {
                if let Some(t) = regs.get(tok.as_str()) {
                    out.push_str(t);
                } else if let Some(&l) = r.locs.get(tok.as_str()) {
                    out.push_str(loc_names[l]);
                } else {
                    out.push_str(tok);
                }
                tok.clear();
            };
            for ch in cond.chars() {
                if ch.is_ascii_alphanumeric() || ch == '_' || ch == ':' {
                    tok.push(ch);
                } else {
                    flush(&mut tok, &mut out);
                    out.push(ch);
                }
            }
            flush(&mut tok, &mut out);
            out
        };
        let expects: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with("expect ")).collect();
        let mut checked_text = gen_text.clone();
        for e in &expects {
            checked_text += &format!("{}\n", translate(e));
        }
        let rep = litmus::check_text(&name, &checked_text, &order, &Catalogue::builtins())
            .unwrap_or_else(|e| panic!("{e}\n{checked_text}"));
        // documented disagreements (`# DISAGREES`) are not carried over: all must hold
        let paper_known = text.contains("DISAGREES");
        if !paper_known {
            assert!(rep.all_ok(), "{name}: the paper's expectations fail on the generated program\n{checked_text}");
        }
        // the same outcome set as the generated file records
        let outs = litmus::outcomes_of_text(&gen_text, &order, &Catalogue::builtins(), true).expect("runs");
        let mut pinned = gen_text.clone() + &generate::expectation_lines(&outs);
        for e in &expects {
            pinned += &format!("{}\n", translate(e));
        }
        let rep2 = litmus::check_text(&name, &pinned, &order, &Catalogue::builtins()).expect("runs");
        assert_eq!(rep2.outcomes.len(), outs.len());
        if !paper_known {
            assert!(rep2.all_ok(), "{name}\n{pinned}");
        }
        found.push(name);
    }
    // the TSO tests of Fig. 1 and the RDMA tests that fit 2 threads × 2 calls over 2 locations
    for must in ["RDMA-Fig1a-TSO-SB", "RDMA-Fig1c-TSO-LB", "RDMA-Fig1d-TSO-MP"] {
        assert!(found.iter().any(|f| f == must), "{must} not generated; found {found:?}");
    }
    eprintln!("paper tests generated: {found:?}");
    assert!(found.len() >= 5, "{found:?}");
}

// ---------------------------------------------------------------------------
// Distinguishing-test search
// ---------------------------------------------------------------------------

/// RDMA paper §2 (Fig. 3e) and §4 (end): with the PCIe guarantee a NIC remote read
/// flushes the pending remote writes of its queue pair. The search between
/// `rdmatso` and `rdmatso_nopcie` finds programs of 4 calls (none of 1-3 calls
/// differ), each with a put followed by a get towards the same node by one thread,
/// and an outcome only the model without PCIe allows (the PCIe guarantee only forbids).
#[test]
fn search_finds_the_pcie_guarantee_at_the_smallest_size() {
    let order = default_order();
    let base = Model::parse("rdmatso", &order, &mut Catalogue::builtins()).expect("library");
    let variant = Model::parse("rdmatso_nopcie", &order, &mut Catalogue::builtins()).expect("library");
    let b = SuiteBounds { min_threads: 1, ..bounds(2, 2, 2, 2, 1) };
    let opts = SearchOptions {
        library: "rdmatso".into(),
        bounds: b.gen_bounds("rdmatso", &Catalogue::builtins()),
        max: None,
        jobs: 2,
        partition: mowgli_check::analyses::refine::gen::Partition::ALL,
    };
    let rep = explore::search(&base, &variant, &order, &opts, &|_, _| {}, &Catalogue::builtins()).expect("searches");
    assert!(rep.errors.is_empty(), "{:?}", rep.errors);
    let sizes: Vec<(usize, usize)> = rep.classes.iter().map(|c| (c.size, c.distinguishing)).collect();
    assert_eq!(sizes, vec![(1, 0), (2, 0), (3, 0), (4, rep.found.len())]);
    assert!(!rep.found.is_empty());
    for d in &rep.found {
        assert_eq!(d.size, 4);
        assert!(d.only_base.is_empty() && !d.only_variant.is_empty(), "{}", d.base_text);
        // a thread puts, then gets, towards the same node
        let p = parse(&d.base_text);
        let home = |l: &str| p.locs.iter().find(|x| x.0 == l).map(|x| x.1);
        let put_then_get = p.threads.iter().any(|(_, _, calls)| {
            calls.iter().enumerate().any(|(i, c)| {
                c.method == "Put"
                    && calls[i + 1..].iter().any(|g| g.method == "Get" && home(&g.args[1]) == home(&c.args[0]))
            }) || calls.iter().enumerate().any(|(i, c)| {
                c.method == "Get"
                    && calls[i + 1..].iter().any(|q| q.method == "Put" && home(&q.args[0]) == home(&c.args[1]))
            })
        });
        assert!(put_then_get, "{}", d.base_text);
        // each side's file holds under its own model, and fails under the other
        for (text, lib_ok) in [(&d.base_text, true), (&d.variant_text, true)] {
            let r = litmus::check_text(&d.name, text, &order, &Catalogue::builtins()).expect("runs");
            assert_eq!(r.all_ok(), lib_ok, "{text}");
        }
        let mut swapped = mowgli_check::lang::syntax::parse(&d.base_text).expect("parses");
        mowgli_check::lang::edit::rename_library(&mut swapped, "rdmatso", "rdmatso_nopcie");
        let swapped = mowgli_check::lang::print::print(&swapped);
        assert!(!litmus::check_text(&d.name, &swapped, &order, &Catalogue::builtins()).expect("runs").all_ok());
    }
}
