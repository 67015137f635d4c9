//! Litmus thread bodies in the implementation language (`docs/formats.md`,
//! "Extension: thread bodies in the implementation language").
//!
//! Expected outcomes never come from the tool run on the same program: each
//! program using the new constructs is compared with an equivalent program in the
//! base format (straight-line, literal arguments), whose outcome set the tool
//! computes independently — a `for` against its unrolled calls, an `if` on a
//! register against the explicit cases (each restricted to the executions where the
//! register has the case's value), a spin loop against a single read restricted to
//! the value the loop waits for, arithmetic against the literal it computes in each
//! case. The examples in `specs/litmus/lang/` are checked the same way, and their
//! expectations (each justified in the file) must hold.

use mowgli_libs::catalogue::Catalogue;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use mowgli_check::analyses::litmus;
use mowgli_libs::orders::default_order;
use proptest::prelude::*;

type Outcomes = BTreeSet<BTreeMap<String, String>>;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn lang_file(name: &str) -> String {
    std::fs::read_to_string(root().join("specs/litmus/lang").join(name)).expect("example exists")
}

/// Every outcome (all registers, all declared locations) of a test given as text.
fn outcomes(text: &str) -> Outcomes {
    litmus::outcomes_of_text(text, &default_order(), &Catalogue::builtins(), true)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .into_iter()
        .collect()
}

/// The outcomes whose `key` is `value`.
fn restrict(o: &Outcomes, key: &str, value: &str) -> Outcomes {
    o.iter().filter(|m| m.get(key).map(String::as_str) == Some(value)).cloned().collect()
}

/// The outcomes without `key`.
fn drop_key(o: &Outcomes, key: &str) -> Outcomes {
    o.iter()
        .map(|m| {
            let mut m = m.clone();
            m.remove(key);
            m
        })
        .collect()
}

fn report(name: &str, text: &str) -> litmus::TestReport {
    litmus::check_text(name, text, &default_order(), &Catalogue::builtins()).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn error(text: &str) -> String {
    match litmus::check_text("e.litmus", text, &default_order(), &Catalogue::builtins()) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

// ---------------------------------------------------------------------------
// The examples of specs/litmus/lang: expectations, justifications, bounds
// ---------------------------------------------------------------------------

#[test]
fn lang_examples_hold_and_every_expectation_is_justified() {
    let files = litmus::collect(&[root().join("specs/litmus/lang")]).expect("directory exists");
    assert!(files.len() >= 8, "{files:?}");
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let r = litmus::check_file(f, &default_order(), &Catalogue::builtins()).unwrap_or_else(|e| panic!("{e}"));
        assert!(r.all_ok(), "{}", litmus::render(&r, false));
        assert!(!r.expectations.is_empty(), "{}", f.display());
        // the line right above every `expect` line is a comment saying where it comes from
        let lines: Vec<&str> = text.lines().collect();
        for e in &r.expectations {
            let above = lines[e.line - 2].trim_start();
            assert!(
                above.starts_with('#'),
                "{}:{}: expectation without a justifying comment right above it",
                f.display(),
                e.line
            );
        }
        // every loop of the suite leaves within the bound: the results are exact
        assert!(!r.bounded, "{}", f.display());
    }
}

/// Fig. 1d's reader waiting for y = 1 in a plain loop under RDMA^TSO (whose reads
/// are not declared removable: no spin loop), cut at the unrolling bound.
const FIG1D_WAIT: &str = "test W\nlibraries rdmatso\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1\nloc y @ 1\nT1:\n  Write(x, 1)\n  Write(y, 1)\nT2:\n  loop {\n    a = Read(y)\n    if a == 1 { break }\n  }\n  b = Read(x)\nexpect forbidden T2:b = 0\nexpect allowed T2:a = 1 /\\ T2:b = 1\n";

/// A loop cut at the unrolling bound lost the runs that stay in it longer: what
/// an outcome found decides holds (an `allowed` line it reaches, a `forbidden`
/// line it refutes), the rest is undecided, and the run is inconclusive; the
/// report names the bound and the knob.
#[test]
fn a_bounded_result_decides_only_what_it_found() {
    let r = report("b.litmus", FIG1D_WAIT);
    assert!(r.bounded && r.bound_open() && !r.all_ok());
    let status: Vec<&str> = r.expectations.iter().map(|e| e.status()).collect();
    assert_eq!(status, ["undecided", "ok"]);
    assert!(litmus::render(&r, false).contains("note: a loop reached the unrolling bound (--loop-bound)"));
    let sum = litmus::Summary::of(std::slice::from_ref(&r), 0);
    let d = sum.decide();
    assert_eq!(d.verdict, mowgli_check::analyses::verdict::Verdict::Inconclusive, "{}", d.why);
    assert!(d.why.contains("raise --loop-bound"), "{}", d.why);
    // a bounded run that finds the outcome a `forbidden` line names is a real counterexample
    let refuted = FIG1D_WAIT.replace("expect forbidden T2:b = 0", "expect forbidden T2:b = 1");
    let r = report("c.litmus", &refuted);
    assert!(r.bounded && r.expectations[0].decided && !r.expectations[0].ok);
    let d = litmus::Summary::of(std::slice::from_ref(&r), 0).decide();
    assert_eq!(d.verdict, mowgli_check::analyses::verdict::Verdict::Counterexample, "{}", d.why);
    // with only `allowed` lines that it reaches, the bounded run decides them all
    let found = FIG1D_WAIT.replace("expect forbidden T2:b = 0\n", "");
    let r = report("f.litmus", &found);
    assert!(r.bounded && !r.bound_open() && r.all_ok());
    // a spin loop is exact
    let r = report("s.litmus", &lang_file("LANG-Fig8b-spin-MP.litmus"));
    assert!(!r.bounded);
    assert!(!litmus::render(&r, false).contains("note:"));
}

const FIG2B: &str = "test Fig2b\nlibraries rdmatso\nthread T1 @ 1\nloc x @ 1\nloc z @ 2\nT1:\n  Put(z, x)\n  Put(z, x)\n  Poll(2)\n  Write(x, 1)\n";

#[test]
fn for_loops_are_their_unrolled_calls() {
    // LANG-Fig2b: `for i in {1, 2} { Put(z, x) }` against the two puts of LOCO Fig. 2b
    let o = outcomes(&lang_file("LANG-Fig2b-for-puts.litmus"));
    assert_eq!(o, outcomes(FIG2B));
    assert_eq!(o.len(), 2);
    // LANG-Fig2c: two `for` over range(0, 2) against LOCO Fig. 2c
    let fig2c = FIG2B.replace("  Poll(2)\n", "  Poll(2)\n  Poll(2)\n");
    assert_eq!(outcomes(&lang_file("LANG-Fig2c-for-polls.litmus")), outcomes(&fig2c));
    // the issue's example: `for n in {1, 2} { Put(x, 1) }` against two straight puts
    let head = "test P\nlibraries rdmawait\nthread T1 @ 1\nthread T2 @ 2\nloc x @ 2\nT1:\n";
    let tail = "T2:\n  a = Read(x)\n  b = Read(x)\n";
    let looped = format!("{head}  for n in {{1, 2}} {{ Put(x, 1, _) }}\n  Put(x, 2, d)\n  Wait(d)\n{tail}");
    let straight = format!("{head}  Put(x, 1, _)\n  Put(x, 1, _)\n  Put(x, 2, d)\n  Wait(d)\n{tail}");
    assert_eq!(outcomes(&looped), outcomes(&straight));
    // a loop variable as a node: `for n in {2} { Poll(n) }` is `Poll(2)`
    let polled = FIG2B.replace("  Poll(2)\n", "  for n in {2} {\n    Poll(n)\n  }\n");
    assert_eq!(outcomes(&polled), outcomes(FIG2B));
    // an empty set runs the body no time
    let none = FIG2B.replace("  Put(z, x)\n  Put(z, x)\n", "  Put(z, x)\n  Put(z, x)\n  for n in {} { Write(x, 7) }\n");
    assert_eq!(outcomes(&none), outcomes(FIG2B));
}

#[test]
fn var_and_break_loops_are_their_unrolled_calls() {
    // LANG-Fig3b: a counting loop making the puts of LOCO Fig. 3b
    let fig3b = "test Fig3b\nlibraries rdmawait\nthread T1 @ 1\nloc x @ 1\nloc z @ 2\nT1:\n  Put(z, x, e)\n  Put(z, x, d)\n  Wait(d)\n  Write(x, 1)\n";
    let o = outcomes(&lang_file("LANG-Fig3b-var-loop.litmus"));
    assert!(o.iter().all(|m| m["T1:i"] == "1"), "{o:?}");
    assert_eq!(drop_key(&o, "T1:i"), outcomes(fig3b));
    // a loop writing 0, 1, 2 against the three writes, read by another thread
    let head =
        "test W\nlibraries rdmawait\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1\nT2:\n  a = Read(x)\n  b = Read(x)\nT1:\n";
    let looped =
        format!("{head}  var i = 0\n  loop {{\n    Write(x, i)\n    i = i + 1\n    if i == 3 {{ break }}\n  }}\n");
    let straight = format!("{head}  Write(x, 0)\n  Write(x, 1)\n  Write(x, 2)\n");
    let o = outcomes(&looped);
    assert!(o.iter().all(|m| m["T1:i"] == "3"));
    assert_eq!(drop_key(&o, "T1:i"), outcomes(&straight));
    assert!(!report("w.litmus", &looped).bounded, "the loop leaves within the bound");
}

const FIG8B: &str = "test Fig8b\nlibraries rdmawait\nthread T1 @ 1\nthread T2 @ 1\nloc w @ 1 = 1\nloc x @ 1\nloc y @ 1\nT1:\n  r = Read(w)\n  Write(x, r)\n  Write(y, 1)\nT2:\n  b = Read(y)\n  c = Read(x)\n";

#[test]
fn spin_loops_are_the_read_that_leaves_them() {
    // LANG-Fig8b-spin: the spin loop on y against Fig. 8b's single read restricted to b = 1
    let o = outcomes(&lang_file("LANG-Fig8b-spin-MP.litmus"));
    assert_eq!(o, restrict(&outcomes(FIG8B), "T2:b", "1"));
    assert!(!report("s.litmus", &lang_file("LANG-Fig8b-spin-MP.litmus")).bounded);
    // Fig. 1d's wait under RDMA^TSO (no spin loop, unrolled and cut) against Fig. 1d
    // restricted to a = 1: the runs found within the bound
    let fig1d = "test Fig1d\nlibraries rdmatso\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1\nloc y @ 1\nT1:\n  Write(x, 1)\n  Write(y, 1)\nT2:\n  a = Read(y)\n  b = Read(x)\n";
    assert_eq!(outcomes(FIG1D_WAIT), restrict(&outcomes(fig1d), "T2:a", "1"));
    // LANG-Fig1d-loop: at most three attempts, against Fig. 1d with a the last of
    // up to three reads of y (three reads of y = 0, or a first 1)
    let tries = "test T\nlibraries rdmatso\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1\nloc y @ 1\nT1:\n  Write(x, 1)\n  Write(y, 1)\nT2:\n  a = Read(y)\n  b = Read(x)\n";
    let looped = drop_key(&outcomes(&lang_file("LANG-Fig1d-loop-MP-tso.litmus")), "T2:n");
    assert_eq!(looped, outcomes(tries));
    // shared variables: a spin loop on a replicated location written by another node
    let head = "test SV\nlibraries sv\nthread T1 @ 1\nthread T2 @ 2\nloc x\nloc y\nT1:\n  Write(y, 1)\n  Write(x, 1)\n  Bcast(y, d, {2})\n  Wait(d)\n  Bcast(x, _, {2})\nT2:\n";
    let spin = format!("{head}  loop {{\n    a = Read(x)\n    if a == 1 {{ break }}\n  }}\n  b = Read(y)\n");
    let once = format!("{head}  a = Read(x)\n  b = Read(y)\n");
    assert_eq!(outcomes(&spin), restrict(&outcomes(&once), "T2:a", "1"));
    assert!(!report("sv.litmus", &spin).bounded);
    // a loop that waits for one of two values
    let two = FIG8B.replace("  b = Read(y)\n", "  loop {\n    b = Read(y)\n    if b == 1 || b == 2 { break }\n  }\n");
    let single = outcomes(FIG8B);
    let mut expected = restrict(&single, "T2:b", "1");
    expected.extend(restrict(&single, "T2:b", "2"));
    assert_eq!(outcomes(&two), expected);
}

#[test]
fn loops_that_remember_earlier_iterations_are_no_spin_loops() {
    // counting the failed reads: an iteration that does not break changes `n`, which
    // the loop reads again: unrolled (bounded), and n can be more than 1
    let counted = FIG8B.replace(
        "  b = Read(y)\n",
        "  var n = 0\n  loop {\n    b = Read(y)\n    n = n + 1\n    if b == 1 { break }\n  }\n",
    );
    let r = report("c.litmus", &counted);
    assert!(r.bounded);
    let o = outcomes(&counted);
    assert!(o.iter().any(|m| m["T2:n"] == "2"), "{o:?}");
    assert_eq!(drop_key(&o, "T2:n"), restrict(&outcomes(FIG8B), "T2:b", "1"));
    // a register bound after the `break`: its value comes from a failed iteration
    let after = FIG8B.replace(
        "  b = Read(y)\n  c = Read(x)\n",
        "  loop {\n    b = Read(y)\n    if b == 1 { break }\n    c = Read(x)\n  }\n",
    );
    let r = report("a.litmus", &after);
    assert!(r.bounded);
    let o = outcomes(&after);
    assert!(o.iter().any(|m| m["T2:c"] == "?"), "c unbound when the first read sees 1: {o:?}");
    assert!(o.iter().any(|m| m["T2:c"] == "0"), "c from a failed iteration: {o:?}");
}

#[test]
fn if_on_a_register_is_the_union_of_its_cases() {
    // LANG-Fig8b-if-copy against Fig. 8b with each literal write, restricted to its case
    let o = outcomes(&lang_file("LANG-Fig8b-if-copy.litmus"));
    let case = |v: &str| {
        let text = FIG8B.replace("  Write(x, r)\n", &format!("  Write(x, {v})\n"));
        restrict(&outcomes(&text), "T1:r", v)
    };
    let mut expected = case("1");
    expected.extend(case("0"));
    assert_eq!(o, expected);
    // an `else if` chain on a read value, against the three literal writes
    let head = "test C\nlibraries rdmawait\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1\nloc y @ 1\nT1:\n  Write(x, 1)\n  Write(x, 2)\nT2:\n  a = Read(x)\n";
    let chain = format!(
        "{head}  if a == 0 {{\n    Write(y, 10)\n  }} else if a == 1 {{\n    Write(y, 11)\n  }}\n  else {{ Write(y, 12) }}\n"
    );
    let mut expected = Outcomes::new();
    for (a, w) in [("0", "10"), ("1", "11"), ("2", "12")] {
        expected.extend(restrict(&outcomes(&format!("{head}  Write(y, {w})\n")), "T2:a", a));
    }
    assert_eq!(outcomes(&chain), expected);
    // an `if` on the right of `=`, and `let`: v is the value the case computes
    let rhs = format!("{head}  let v = if a > 0 {{ a * 2 }} else {{ 7 }}\n  Write(y, v)\n");
    let mut expected = Outcomes::new();
    for (a, w) in [("0", "7"), ("1", "2"), ("2", "4")] {
        for mut m in restrict(&outcomes(&format!("{head}  Write(y, {w})\n")), "T2:a", a) {
            m.insert("T2:v".into(), w.into());
            expected.insert(m);
        }
    }
    assert_eq!(outcomes(&rhs), expected);
}

#[test]
fn computed_arguments_are_the_literals_they_compute() {
    // LANG-Fig1d-arith: z = 10·a + b against Fig. 1d with the literal write, per case
    let fig1d = "test Fig1d\nlibraries rdmatso\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1\nloc y @ 1\nloc z @ 1\nT1:\n  Write(x, 1)\n  Write(y, 1)\nT2:\n  a = Read(y)\n  b = Read(x)\n";
    let mut expected = Outcomes::new();
    for a in 0..2 {
        for b in 0..2 {
            let o = outcomes(&format!("{fig1d}  Write(z, {})\n", 10 * a + b));
            expected.extend(restrict(&restrict(&o, "T2:a", &a.to_string()), "T2:b", &b.to_string()));
        }
    }
    assert_eq!(outcomes(&lang_file("LANG-Fig1d-arith-MP.litmus")), expected);
    // a computed value read by another thread: the increment of a read value
    let head = "test I\nlibraries rdmawait\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1\nloc y @ 1\nT2:\n  c = Read(y)\nT1:\n  Write(x, 4)\n  a = Read(x)\n";
    let computed = format!("{head}  Write(y, (a + 1) % 3)\n");
    let literal = format!("{head}  Write(y, 2)\n");
    assert_eq!(outcomes(&computed), outcomes(&literal));
    // a tuple holding a register (`[a, 2]`), read back by another thread
    let head = "test T\nlibraries rdmawait\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1 = 5\nloc y @ 1\nT2:\n  c = Read(y)\nT1:\n  a = Read(x)\n";
    assert_eq!(outcomes(&format!("{head}  Write(y, [a, 2])\n")), outcomes(&format!("{head}  Write(y, [5, 2])\n")));
    // min, max, comparisons and booleans
    let minmax = format!("{head}  Write(y, [min(a, 3), max(a, 9), a == 5, !(a < 0) && true])\n");
    assert_eq!(outcomes(&minmax), outcomes(&format!("{head}  Write(y, [3, 9, true, true])\n")));
    // a message computed for a ring buffer
    let ring = "test R\nlibraries rbl\nthread T1 @ 1\nthread T2 @ 2\nring q : writer T1 readers T2\nT1:\n  a = Submit(q, [1])\n  b = Submit(q, X)\nT2:\n  c = Receive(q)\n  d = Receive(q)\n";
    let via_register = ring.replace("  b = Submit(q, X)\n", "  let k = 41\n  b = Submit(q, [k + 1])\n");
    let o = drop_key(&outcomes(&via_register), "T1:k");
    assert_eq!(o, outcomes(&ring.replace("X", "[42]")));
}

#[test]
fn node_builtins_and_computed_node_sets() {
    // LANG-Fig5-GF-nodes against LOCO Fig. 5
    let fig5 = "test Fig5\nlibraries rdmawait, sv\nthread T1 @ 1\nthread T2 @ 2\nloc y @ 1\nloc x @ 2\nT1:\n  Put(x, 1, _)\n  GF({2})\n  a = rdmawait.Read(y)\nT2:\n  Put(y, 1, _)\n  GF({1})\n  b = rdmawait.Read(x)\n";
    assert_eq!(outcomes(&lang_file("LANG-Fig5-GF-nodes.litmus")), outcomes(fig5));
    // a computed node set in a broadcast
    let bcast =
        fig5.replace("  GF({2})\n", "  GF(nodes - {node})\n").replace("  GF({1})\n", "  GF({ n | n in {1} })\n");
    assert_eq!(outcomes(&bcast), outcomes(fig5));
}

#[test]
fn base_format_bodies_keep_their_meaning() {
    // `r = …` and `let r = …` bind the same register; registers stay visible
    let with_let = FIG8B.replace("  b = Read(y)\n", "  let b = Read(y)\n");
    assert_eq!(outcomes(&with_let), outcomes(FIG8B));
    // statements separated by `;` are the lines
    let semi = FIG8B.replace("  b = Read(y)\n  c = Read(x)\n", "  b = Read(y); c = Read(x)\n");
    assert_eq!(outcomes(&semi), outcomes(FIG8B));
    // registers named like keywords of the implementation language
    let kw = FIG8B.replace("b = Read(y)", "loop = Read(y)").replace("c = Read(x)", "bot = Read(x)\n  Write(y, bot)");
    let o = outcomes(&kw);
    assert!(o.iter().any(|m| m.contains_key("T2:loop") && m.contains_key("T2:bot")), "{o:?}");
    let plain = FIG8B.replace("c = Read(x)", "c = Read(x)\n  Write(y, c)");
    let renamed: Outcomes = o
        .into_iter()
        .map(|m| m.into_iter().map(|(k, v)| (k.replace("T2:loop", "T2:b").replace("T2:bot", "T2:c"), v)).collect())
        .collect();
    assert_eq!(renamed, outcomes(&plain));
    // a value no location holds (a put's identifier, LOCO App. F.1) written and read
    // back: the same outcomes as writing that identifier as a literal
    let head = "test Id\nlibraries rdmatso\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1\nloc y @ 1\nloc z @ 2\nT2:\n  a = Read(y)\nT1:\n  i = Put(z, x)\n";
    let o = outcomes(&format!("{head}  Write(y, i)\n"));
    let ids: BTreeSet<&String> = o.iter().map(|m| &m["T1:i"]).collect();
    assert_eq!(ids.len(), 1, "{o:?}");
    let id = ids.into_iter().next().unwrap().clone();
    assert!(o.iter().any(|m| m["T2:a"] == id), "the identifier is read back: {o:?}");
    let literal: Outcomes = outcomes(&format!("{head}  Write(y, {id})\n"));
    assert_eq!(o, literal);
    // a body continued after a declaration
    let split = FIG8B.replace("  c = Read(x)\n", "loc v @ 1\n  c = Read(x)\n");
    assert_eq!(drop_key(&outcomes(&split), "v"), outcomes(FIG8B));
}

// ---------------------------------------------------------------------------
// Errors: file:line:column, exit status 2, the culprit named
// ---------------------------------------------------------------------------

const HEAD: &str = "test E\nlibraries rdmawait\nthread T1 @ 1\nloc x @ 1\nloc y @ 1\nT1:\n";

#[test]
fn syntax_errors_have_line_and_column() {
    let cases: &[(&str, &str)] = &[
        // an unclosed block, ended by a declaration or by the end of the file
        (
            "  if true {\n    Write(x, 1)\nexpect allowed x = 1\n",
            "e.litmus:9:1: expected `}`, found the next statement `expect`",
        ),
        // the end of the file is shown at the end of the last line
        ("  loop {\n    Write(x, 1)\n", "e.litmus:8:16: expected `}`, found the end of the file"),
        ("  Write(x, 1)\n  }\n", "e.litmus:8:3: expected a statement (this `}` closes no block)"),
        ("  a = Read(x)\n  Write(x, a + )\n", "e.litmus:8:16: expected an expression, found `)`"),
        ("  if x == 1 Write(x, 1)\n", "e.litmus:7:13: expected `{`, found `Write`"),
        ("  Write(x, Read(y))\n", "e.litmus:7:12: a method call cannot stand inside an expression"),
        ("  a = Read(x)\n  a + 1\n", "e.litmus:8:3: expected a statement (a method call"),
        ("  for in {1} { }\n", "e.litmus:7:10: expected `in`, found `{`"),
        ("  Write(x, 1 $ 2)\n", "e.litmus:7:14: unexpected character `$`"),
        // lines of the base format keep the base format's messages
        ("  Write(x, 1\n", "e.litmus:7:13: expected `,` or `)`, found the end of the line"),
        ("  Write\n", "e.litmus:7:8: expected `(`, found the end of the line"),
        ("  a = Read(x) b\n", "e.litmus:7:15: expected the end of the line, found `b`"),
    ];
    for (body, want) in cases {
        let e = error(&format!("{HEAD}{body}"));
        assert!(e.starts_with(want), "{body:?}:\n  got  {e}\n  want {want}");
    }
}

#[test]
fn semantic_errors_name_the_culprit() {
    let cases: &[(&str, &str)] = &[
        ("  Write(x, r)\n", "e.litmus:7:12: register `r` is not bound earlier in this thread"),
        // bound on one path only
        (
            "  a = Read(x)\n  if a == 1 { r = Read(y) }\n  Write(x, r)\n",
            "e.litmus:9:12: register `r` is not bound earlier",
        ),
        ("  Frobnicate(x)\n", "e.litmus:7:3: unknown method `Frobnicate`"),
        ("  write(x, 1)\n", "e.litmus:7:3: unknown method `write`"),
        ("  rdmawait.write(x, 1)\n", "e.litmus:7:12: library `rdmawait` has no method `write`"),
        ("  Write(x, frob(1))\n", "e.litmus:7:12: unknown function `frob`"),
        ("  break\n", "e.litmus:7:3: `break` outside a `loop`"),
        ("  r = Write(x, 1)\n", "e.litmus:7:3: `Write` returns no value; drop `r =`"),
        ("  a = Read(x)\n  for a in {1} { }\n", "e.litmus:8:7: `a` is a register of this thread"),
        ("  for n in {1} { n = Read(x) }\n", "e.litmus:7:7: `n` is a register of this thread; a loop variable needs"),
        (
            "  loop { let k = { n | n in {1} }; n = Read(x); break }\n",
            "e.litmus:7:24: `n` is a register of this thread",
        ),
        ("  for x in {1} { }\n", "e.litmus:7:7: `x` is already a location; it cannot also be a register"),
        ("  Write(y + 1, 1)\n", "e.litmus:7:9: expected a location"),
        ("  Write(x, y)\n", "e.litmus:7:12: expected a value or a register, but `y` is a location"),
        ("  Rfence(5)\n", "e.litmus:7:10: node 5 is not a node of this test"),
        ("  a = Read(x)\n  Wait(a)\n", "e.litmus:8:8: `a` is already a register; it cannot also be a work identifier"),
        ("  Write(x, _)\n", "e.litmus:7:12: expected a value or a register"),
    ];
    for (body, want) in cases {
        let e = error(&format!("{HEAD}{body}"));
        assert!(e.starts_with(want), "{body:?}:\n  got  {e}\n  want {want}");
    }
    let e = error("test E\nlibraries sv\nthread T1 @ 1\nT1:\n  GF({0})\n");
    assert!(e.starts_with("e.litmus:5:7: expected a node (a positive integer), found `0`"), "{e}");
}

#[test]
fn malformed_bodies_exit_with_status_2() {
    let dir = std::env::temp_dir().join(format!("mowgli-lang-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("bad.litmus");
    std::fs::write(&p, format!("{HEAD}  loop {{\n    Write(x, 1 +)\n  }}\n")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mowgli")).args(["litmus", p.to_str().unwrap()]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("bad.litmus:8:17: expected an expression, found `)`"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

// ---------------------------------------------------------------------------
// Mutated thread bodies never panic
// ---------------------------------------------------------------------------

const SEED: &str = "test M\nlibraries rdmawait, sv\nthread T1 @ 1\nthread T2 @ 2\nloc x @ 1 = 1\nloc y @ 2\nloc v\nT1:\n  var i = 0\n  loop {\n    Put(y, x, d)\n    i = i + 1\n    if i >= 2 { break }\n  }\n  rdmawait.Wait(d)\n  for n in nodes - {node} { GF({n}) }\n  let a = rdmawait.Read(x)\n  sv.Write(v, [a, i % 2])\nT2:\n  loop {\n    b = rdmawait.Read(y)\n    if b == 1 || b > 5 { break }\n  }\n  c = if b == 1 { min(b, 3) } else { max(b, 0) }\n  sv.Bcast(v, e, {1, 2})\nexpect allowed T2:b = 1 /\\ ~(v@1 = [1, 2])\n";

const FRAGMENTS: [&str; 16] = [
    "{",
    "}",
    "(",
    ")",
    "if ",
    "else ",
    "loop ",
    "break",
    "for k in {1, 2} ",
    "let ",
    "var ",
    " = ",
    "+",
    "\n",
    ";",
    "==",
];

#[test]
fn the_mutation_seed_is_a_valid_test() {
    let r = report("m.litmus", SEED);
    assert!(r.all_ok() && !r.outcomes.is_empty() && !r.bounded, "{}", litmus::render(&r, false));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Thread bodies mutated by deleting, replacing or inserting characters and
    /// fragments of the language are accepted or rejected with a `file:line:col`
    /// message; nothing panics.
    #[test]
    fn mutated_thread_bodies_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0..4u8, any::<prop::sample::Index>(), prop::sample::select(
            vec!['(', ')', ',', '=', '{', '}', '[', ']', '_', '+', '-', '*', '%', '<', '!', '|', '&', ';', '\n', ' ', 'x', 'a', '1', '0', '.', 'é']
        )), 1..6)
    ) {
        let body_start = SEED.find("T1:").unwrap();
        let mut text: Vec<char> = SEED.chars().collect();
        for (ix, op, frag, c) in edits {
            let lo = body_start.min(text.len().saturating_sub(1));
            if text.len() <= lo + 1 {
                break;
            }
            let i = lo + ix.index(text.len() - lo);
            match op {
                0 => { text.remove(i); }
                1 => text[i] = c,
                2 => text.insert(i, c),
                _ => {
                    let f = FRAGMENTS[frag.index(FRAGMENTS.len())];
                    for (k, ch) in f.chars().enumerate() {
                        text.insert(i + k, ch);
                    }
                }
            }
        }
        let text: String = text.into_iter().collect();
        if let Err(e) = litmus::check_text("m.litmus", &text, &default_order(), &Catalogue::builtins()) {
            let msg = e.to_string();
            prop_assert!(msg.starts_with("m.litmus:"), "{}", msg);
            prop_assert!(e.line >= 1 && e.col >= 1, "no position: {}\n{}", msg, text);
        }
    }
}

/// A value computed from a read, carried by a put and a get to another location,
/// computed on again and carried twice more before it is read: the value domain
/// closes each round under the copies the calls make, so only the two computing
/// writes cost rounds (`mowgli_core::fixpoint::DomainSets::close_copies`). The
/// expected outcomes are the case split: for each pair of values (r, s) of the two
/// registers the writes compute from, the same program with the literals r + 1 and
/// s + 1 written, restricted to that pair (a program whose values are all literals
/// needs no computed domain).
#[test]
fn copies_cost_no_round_of_the_value_domain() {
    let program = |b: &str, f: &str| {
        format!(
            "test C\nlibraries rdmawait\nthread T1 @ 1\nthread T2 @ 2\nloc x @ 1\nloc c @ 1\nloc z @ 1\n\
             loc a @ 2\nloc b @ 2\nloc e @ 2\nloc f @ 2\nloc g @ 2\n\
             T1:\n  Write(x, 5)\n\
             T2:\n  Get(a, x, d)\n  Wait(d)\n  r = Read(a)\n  Write(b, {b})\n  Put(c, b, d)\n  Wait(d)\n\
             \x20 Get(e, c, d)\n  Wait(d)\n  s = Read(e)\n  Write(f, {f})\n  Put(z, f, d)\n  Wait(d)\n\
             \x20 Get(g, z, d)\n  Wait(d)\n  t = Read(g)\n"
        )
    };
    let computed = outcomes(&program("r + 1", "s + 1"));
    let mut cases = Outcomes::new();
    for r in [0, 1, 5, 6, 7] {
        for s in [0, 1, 2, 5, 6, 7, 8] {
            let o = outcomes(&program(&(r + 1).to_string(), &(s + 1).to_string()));
            cases.extend(restrict(&restrict(&o, "T2:r", &r.to_string()), "T2:s", &s.to_string()));
        }
    }
    assert_eq!(computed, cases);
    // the chain 5 → 6 → 7 is reached: the get read T1's write, every copy landed
    assert!(computed.iter().any(|m| m.get("T2:t").map(String::as_str) == Some("7")), "{computed:?}");
}
