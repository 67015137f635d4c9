//! The library files of `specs/libs` (the source of truth of the built-ins sv,
//! rdmawait, msw, bal, bal_all, rbl, rbl_weak, rbl_rfe, embedded in the binary)
//! against the independent oracle `tests/oracle` (the same libraries written in
//! Rust from the paper's definitions): with the oracle's versions in place of the
//! built-ins (registry overrides), the explicit engine computes exactly the same
//! outcome set as with the files on
//!
//! - every test of `specs/litmus` and every client of `specs/clients` that uses
//!   one of them (and every paper expectation still holds: the outcome sets are equal);
//! - every generated program up to a bound (a small generator below: 2 threads on
//!   2 nodes, 2 calls per thread, over 2 locations and the values 1, 2).
//!
//! Also: the parser's diagnostics (position, caret line, expected tokens, did you
//! mean), and `without_axiom` (dropping an axiom adds outcomes, never removes any).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mowgli_check::analyses::generate::{generate_suite, SuiteBounds, SuiteOptions};
use mowgli_check::analyses::litmus;
use mowgli_check::analyses::refine::gen::Partition;
use mowgli_libs::catalogue::{Catalogue, Factory, SpecFactory};
use mowgli_libs::orders::default_order;
use mowgli_libs::registry;
use mowgli_spec::{parse_file, parse_text, Spec};

mod oracle;

/// The file libraries the oracle has.
const TWINS: [&str; 8] = oracle::NAMES;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn spec(name: &str) -> Spec {
    let p = root().join("specs/libs").join(format!("{name}.lib"));
    parse_file(&p).unwrap_or_else(|d| panic!("{}", d.render()))
}

fn overrides(names: &[&str]) -> Vec<(String, Factory)> {
    names.iter().map(|n| (n.to_string(), spec(n).factory())).collect()
}

type Outcomes = Vec<BTreeMap<String, String>>;

/// The outcome set with the oracle's libraries in place of the built-in files.
fn oracle_outcomes(text: &str) -> Result<Outcomes, String> {
    let order = default_order();
    {
        let cat: Catalogue = oracle::overrides(&TWINS).into_iter().collect();
        litmus::outcomes_of_text(text, &order, &cat, true).map_err(|e| e.render())
    }
}

fn outcomes(text: &str, with_files: &[&str]) -> Result<Outcomes, String> {
    let order = default_order();
    {
        let cat: Catalogue = overrides(with_files).into_iter().collect();
        litmus::outcomes_of_text(text, &order, &cat, true).map_err(|e| e.render())
    }
}

/// The libraries a litmus text names.
fn libraries_of(text: &str) -> Vec<String> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("libraries "))
        .map(|l| l.split(',').map(|s| s.trim().to_string()).collect())
        .unwrap_or_default()
}

fn files_under(dir: &str) -> Vec<PathBuf> {
    litmus::collect(&[root().join(dir)]).expect("directory exists")
}

/// Runs every file under `dirs` that uses a library the oracle has: returns (files compared, differences).
fn compare_dirs(dirs: &[&str]) -> (usize, Vec<String>) {
    let mut n = 0;
    let mut diffs = Vec::new();
    for d in dirs {
        for f in files_under(d) {
            let text = std::fs::read_to_string(&f).expect("readable");
            let libs = libraries_of(&text);
            let swapped: Vec<&str> = TWINS.iter().copied().filter(|t| libs.iter().any(|l| l == t)).collect();
            if swapped.is_empty() {
                continue;
            }
            n += 1;
            let rust = oracle_outcomes(&text);
            let file = outcomes(&text, &swapped);
            if rust != file {
                diffs.push(format!("{} ({swapped:?}):\n  rust {rust:?}\n  file {file:?}", f.display()));
            }
        }
    }
    (n, diffs)
}

#[test]
fn every_library_file_parses() {
    for n in TWINS {
        let s = spec(n);
        assert_eq!(s.name, n);
        s.library(&default_order()).unwrap_or_else(|e| panic!("{n}: {e}"));
        // the built-in is this file (embedded in the binary; `at` names the path)
        let axioms = |s: &Spec| s.axioms.iter().map(|a| (a.name.clone(), a.kind, a.expr.clone())).collect::<Vec<_>>();
        let b = registry::builtin_spec(n).expect("a built-in file");
        assert_eq!((&b.methods, &b.lets, axioms(b), &b.so), (&s.methods, &s.lets, axioms(&s), &s.so), "{n}");
    }
}

#[test]
fn paper_tests_and_clients_agree() {
    let (n, diffs) = compare_dirs(&["specs/litmus", "specs/clients"]);
    eprintln!("compared {n} litmus files");
    assert!(n >= 80, "only {n} files use the oracle libraries");
    assert!(diffs.is_empty(), "{} of {n} differ:\n{}", diffs.len(), diffs.join("\n"));
}

/// The overrides are in force: a file library without one of its axioms gives a
/// different outcome set than the built-in on some test (so the comparison above
/// does compare the file libraries).
#[test]
fn dropping_an_axiom_is_seen() {
    let order = default_order();
    let mut seen = BTreeMap::new();
    for (lib, axiom) in [("sv", "cr_rb_cw"), ("rbl_weak", "fb_hb"), ("rbl", "no_skip"), ("bal", "same_count")] {
        let weak = spec(lib).without_axiom(axiom).expect("the axiom exists");
        let mut changed = 0;
        for f in files_under("specs/litmus").into_iter().chain(files_under("specs/clients")) {
            let text = std::fs::read_to_string(&f).expect("readable");
            if !libraries_of(&text).iter().any(|l| l == lib) {
                continue;
            }
            let rust = oracle_outcomes(&text).expect("runs");
            let dropped = {
                let cat: Catalogue = vec![(lib.to_string(), weak.factory())].into_iter().collect();
                litmus::outcomes_of_text(&text, &order, &cat, true).map_err(|e| e.render())
            }
            .expect("runs");
            assert!(
                rust.iter().all(|o| dropped.contains(o)),
                "{lib} without {axiom} lost an outcome on {}",
                f.display()
            );
            if dropped != rust {
                changed += 1;
            }
        }
        seen.insert(format!("{lib} \\ {axiom}"), changed);
    }
    eprintln!("tests whose outcomes change: {seen:?}");
    assert!(seen.values().all(|&c| c > 0), "{seen:?}");
}

/// Every program of `mowgli generate` over `lib` up to `bounds` (one test per
/// renaming class): the oracle gives the same outcome set as the file library. Returns the number of programs.
fn generated_agree(lib: &str, bounds: SuiteBounds) -> usize {
    let order = default_order();
    let opts = SuiteOptions {
        libs: vec![lib.to_string()],
        bounds,
        max_tests: None,
        jobs: 1,
        model: "default".into(),
        partition: Partition::ALL,
    };
    let (rep, tests) = generate_suite(&opts, &order, &Catalogue::builtins(), &|_| {}).expect("generates");
    assert!(rep.complete && rep.errors.is_empty(), "{:?}", rep.errors);
    let mut diffs = Vec::new();
    for t in &tests {
        let rust = oracle_outcomes(&t.text).expect("runs");
        let file = outcomes(&t.text, &[lib]).expect("runs");
        if rust != file {
            diffs.push(format!("{}\n  rust {rust:?}\n  file {file:?}", t.text));
        }
    }
    assert!(diffs.is_empty(), "{} of {} differ:\n{}", diffs.len(), tests.len(), diffs[..diffs.len().min(3)].join("\n"));
    tests.len()
}

fn bounds(threads: usize, nodes: usize, instrs: usize, locs: usize, values: usize) -> SuiteBounds {
    SuiteBounds { threads, nodes, instrs, locs, values, min_threads: 2 }
}

#[test]
fn generated_sv_programs_agree() {
    let n = generated_agree("sv", bounds(2, 2, 2, 2, 1));
    eprintln!("sv: {n} generated programs agree");
    assert!(n > 100);
}

#[test]
fn generated_rdmawait_programs_agree() {
    let n = generated_agree("rdmawait", bounds(2, 2, 2, 2, 1));
    eprintln!("rdmawait: {n} generated programs agree");
    assert!(n > 100);
}

/// docs/spec-language.md argues that rdmawait's `irreflexive ib` is implied by
/// the acyclicity of hb: without it, the outcome sets of the generated programs
/// stay the same.
#[test]
fn rdmawait_ib_axiom_is_implied() {
    let order = default_order();
    let weak = spec("rdmawait").without_axiom("ib").expect("rdmawait states ib");
    let opts = SuiteOptions {
        libs: vec!["rdmawait".into()],
        bounds: bounds(2, 2, 2, 2, 1),
        max_tests: None,
        jobs: 1,
        model: "default".into(),
        partition: Partition::ALL,
    };
    let (_, tests) = generate_suite(&opts, &order, &Catalogue::builtins(), &|_| {}).expect("generates");
    for t in &tests {
        let with = outcomes(&t.text, &["rdmawait"]).expect("runs");
        let without = {
            let cat: Catalogue = vec![("rdmawait".to_string(), weak.factory())].into_iter().collect();
            litmus::outcomes_of_text(&t.text, &order, &cat, true).map_err(|e| e.render())
        }
        .expect("runs");
        assert_eq!(with, without, "{}", t.text);
    }
}

/// A small library for the diagnostics tests.
const MINI: &str = "library mini\nstamps aCR aCW\nmemory located\nmethod Write(x: local loc, data: val) {\n  stamps aCW\n  aCW writes x = data\n}\n";

fn diag(extra: &str) -> mowgli_diag::Diagnostic {
    let text = format!("{MINI}{extra}");
    match parse_text("mini.lib", &text, None) {
        Ok(_) => panic!("parsed: {extra}"),
        Err(d) => d,
    }
}

#[test]
fn diagnostics_have_position_caret_expected_and_suggestions() {
    // an unknown name, close to a known one
    let d = diag("so = rff\n");
    assert_eq!((d.line, d.col), (8, 6), "{}", d.render());
    assert_eq!(d.help.as_deref(), Some("did you mean `rf`?"));
    let r = d.render();
    assert!(r.starts_with("mini.lib:8:6: unknown name `rff`"), "{r}");
    assert!(r.contains("so = rff") && r.contains('^'), "{r}");
    // a misspelt keyword
    let d = diag("acylic po as x\n");
    assert_eq!((d.line, d.col), (8, 1));
    assert_eq!(d.help.as_deref(), Some("did you mean `acyclic`?"), "{}", d.render());
    assert!(d.expected.contains(&"`acyclic`".to_string()));
    // a missing token
    let d = diag("method Read(x loc) {\n  stamps aCR\n}\n");
    assert_eq!((d.line, d.col), (8, 15), "{}", d.render());
    assert_eq!(d.expected, vec!["`:`".to_string()]);
    // an unknown stamp
    let d = diag("method Read(x: local loc) -> value(x) {\n  stamps aCX\n}\n");
    assert_eq!((d.line, d.col), (9, 10));
    assert_eq!(d.help.as_deref(), Some("did you mean `aCR`?"));
    // types: a set where a relation is needed
    let d = diag("acyclic aCR as bad\n");
    assert!(d.msg.contains("needs a relation"), "{}", d.render());
    let d = diag("let x = aCR ; po\n");
    assert!(d.msg.contains("composes relations"), "{}", d.render());
    // a witness's candidates must be static
    let d = diag("witness w orients rf\n");
    assert!(d.msg.contains("must not depend on a witness"), "{}", d.render());
    // an unknown parameter of a method, with a suggestion
    let d = diag("let s = same(Write.dta, Write.data)\n");
    assert_eq!(d.help.as_deref(), Some("did you mean `data`?"), "{}", d.render());
    // so given twice
    let d = diag("so = po\nso = po\n");
    assert_eq!((d.line, d.col), (9, 1), "{}", d.render());
    assert!(d.msg.contains("so |="), "{}", d.render());
    // the end of the file
    let d = diag("so =");
    assert!(d.msg.contains("found the end of the file"), "{}", d.render());
    // no library name
    let e = parse_text("x.lib", "stamps aCR\n", None).unwrap_err();
    assert!(e.msg.contains("library NAME"));
}

/// Every prefix of every library file, and every file with one character
/// changed, gives a library or a diagnostic (never a panic).
#[test]
fn no_input_panics() {
    for n in TWINS {
        let p = root().join("specs/libs").join(format!("{n}.lib"));
        let text = std::fs::read_to_string(&p).expect("readable");
        let dir = p.parent();
        let chars: Vec<char> = text.chars().collect();
        for cut in (0..chars.len()).step_by(7) {
            let t: String = chars[..cut].iter().collect();
            let _ = parse_text("cut.lib", &t, dir);
        }
        for (i, c) in chars.iter().enumerate().step_by(5) {
            for r in ['(', ';', 'x', ' ', '\\'] {
                if *c == r {
                    continue;
                }
                let mut t = chars.clone();
                t[i] = r;
                let t: String = t.into_iter().collect();
                if let Ok(s) = parse_text("edit.lib", &t, dir) {
                    let _ = s.library(&default_order());
                }
            }
        }
    }
}

/// Every program whose threads run, in order, 0 to `max` instructions taken from
/// their menu (`{r}` stands for a fresh register): the litmus texts.
fn programs(header: &str, threads: &[(&str, Vec<&str>)], max: usize) -> Vec<String> {
    // the instruction sequences of one thread
    let seqs = |menu: &[&str]| -> Vec<Vec<usize>> {
        let mut out = vec![vec![]];
        let mut frontier = vec![vec![]];
        for _ in 0..max {
            let mut next = Vec::new();
            for s in &frontier {
                for i in 0..menu.len() {
                    let mut t: Vec<usize> = s.clone();
                    t.push(i);
                    next.push(t);
                }
            }
            out.extend(next.iter().cloned());
            frontier = next;
        }
        out
    };
    let per: Vec<Vec<Vec<usize>>> = threads.iter().map(|(_, m)| seqs(m)).collect();
    let mut out = Vec::new();
    let mut idx = vec![0; threads.len()];
    loop {
        let mut text = header.to_string();
        let mut reg = 0;
        for (t, (name, menu)) in threads.iter().enumerate() {
            text += &format!("{name}:\n");
            for &i in &per[t][idx[t]] {
                reg += 1;
                text += &format!("  {}\n", menu[i].replace("{r}", &format!("r{reg}")));
            }
        }
        out.push(text);
        // next combination
        let mut k = 0;
        loop {
            if k == idx.len() {
                return out;
            }
            idx[k] += 1;
            if idx[k] < per[k].len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

/// The file libraries `libs` and the oracle agree on every program of `texts`.
fn agree_on(texts: &[String], libs: &[&str]) -> usize {
    let mut diffs = Vec::new();
    for t in texts {
        let rust = oracle_outcomes(t).unwrap_or_else(|e| panic!("{e}\n{t}"));
        let file = outcomes(t, libs).unwrap_or_else(|e| panic!("{e}\n{t}"));
        if rust != file {
            diffs.push(format!("{t}\n  rust {rust:?}\n  file {file:?}"));
        }
    }
    assert!(diffs.is_empty(), "{} of {} differ:\n{}", diffs.len(), texts.len(), diffs[..diffs.len().min(3)].join("\n"));
    texts.len()
}

/// bal and bal_all: two participants on two nodes and a non-participant, up to 2
/// instructions each, with RDMA^WAIT operations around the barrier.
#[test]
fn generated_bal_programs_agree() {
    let mut n = 0;
    for lib in ["bal", "bal_all"] {
        let header = format!(
            "test g\nlibraries rdmawait, {lib}\nthread T1 @ 1\nthread T2 @ 2\nthread T3 @ 2\nloc x @ 1\nloc y @ 2\nbarrier b : T1, T2\n"
        );
        let texts = programs(
            &header,
            &[
                ("T1", vec!["BAR(b)", "Write(x, 1)", "Put(y, 1, _)"]),
                ("T2", vec!["BAR(b)", "{r} = Read(y)", "Put(x, 2, _)"]),
                ("T3", vec!["BAR(b)", "{r} = Read(y)"]),
            ],
            2,
        );
        n += agree_on(&texts, &[lib]);
    }
    eprintln!("bal, bal_all: {n} generated programs agree");
}

/// rbl, rbl_weak, rbl_rfe: a writer and two readers (one on the writer's node), up
/// to 2 instructions each, with sv operations for the synchronisation rings give.
#[test]
fn generated_rbl_programs_agree() {
    let mut n = 0;
    for lib in ["rbl", "rbl_weak", "rbl_rfe"] {
        let header = format!(
            "test g\nlibraries {lib}, sv\nthread T1 @ 1\nthread T2 @ 2\nthread T3 @ 1\nloc z\nring q : writer T1 readers T2, T3 size 4\n"
        );
        let texts = programs(
            &header,
            &[
                ("T1", vec!["{r} = Submit(q, [1])", "{r} = Submit(q, [2])", "Write(z, 1)"]),
                ("T2", vec!["{r} = Receive(q)", "{r} = Read(z)"]),
                ("T3", vec!["{r} = Receive(q)", "Write(z, 2)"]),
            ],
            2,
        );
        n += agree_on(&texts, &[lib]);
    }
    eprintln!("rbl, rbl_weak, rbl_rfe: {n} generated programs agree");
}

/// msw: tuples written, copied by put and get, read whole or failing; up to 2
/// instructions per thread.
#[test]
fn generated_msw_programs_agree() {
    let header =
        "test g\nlibraries msw\nthread T1 @ 1\nthread T2 @ 1\nthread T3 @ 2\nloc x @ 1 size 2\nloc y @ 2 size 2\n";
    let texts = programs(
        header,
        &[
            ("T1", vec!["Write(x, [1, 2])", "Put(y, x, _)"]),
            ("T2", vec!["{r} = TryRead(x)", "Write(x, [3, 4])"]),
            ("T3", vec!["{r} = TryRead(y)", "Get(y, x, _)"]),
        ],
        2,
    );
    let n = agree_on(&texts, &["msw"]);
    eprintln!("msw: {n} generated programs agree");
}

/// `mowgli litmus --lib FILE`: the paper suite passes with the library files read
/// from disk in place of the built-ins embedded in the binary (the same summary line), and a malformed library file
/// is bad input (exit 2) reported at its position.
#[test]
fn cli_lib_flag() {
    let bin = env!("CARGO_BIN_EXE_mowgli");
    let mut libs = Vec::new();
    for n in TWINS {
        libs.push("--lib".to_string());
        libs.push(root().join("specs/libs").join(format!("{n}.lib")).display().to_string());
    }
    let run = |extra: &[String]| {
        let out = std::process::Command::new(bin)
            .arg("litmus")
            .arg("-q")
            .args(extra)
            .arg(root().join("specs/litmus"))
            .output()
            .expect("runs");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let summary = text.lines().find(|l| l.starts_with("summary:")).unwrap_or_default().to_string();
        (out.status.code(), summary)
    };
    let (code_builtin, builtin) = run(&[]);
    let (code_file, file) = run(&libs);
    assert_eq!((code_builtin, &builtin), (code_file, &file));
    assert!(builtin.contains("0 FAIL"), "{builtin}");
    // a malformed library file
    let dir = std::env::temp_dir().join(format!("mowgli-spec-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("bad.lib");
    std::fs::write(&bad, "library bad\nstamps aCR\nso = pp\n").expect("writes");
    let out = std::process::Command::new(bin)
        .args(["litmus", "--lib"])
        .arg(&bad)
        .arg(root().join("specs/litmus/loco"))
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("bad.lib:3:6: unknown name `pp`") && err.contains("did you mean `po`?"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `mowgli explore --base sv --variant FILE.lib`: the built-in against a file
/// library; the shipped file gives no difference, the file without its axiom the
/// paper's sv write-read test (LOCO §3.4).
#[test]
fn explore_with_library_files() {
    let bin = env!("CARGO_BIN_EXE_mowgli");
    let dir = std::env::temp_dir().join(format!("mowgli-spec-explore-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let text = std::fs::read_to_string(root().join("specs/libs/sv.lib")).expect("readable");
    let weak: String = text
        .lines()
        .filter(|l| !l.starts_with("empty rb"))
        .map(|l| if l == "library sv" { "library sv_norb\n".to_string() } else { format!("{l}\n") })
        .collect();
    let weak_file = dir.join("sv_norb.lib");
    std::fs::write(&weak_file, weak).expect("writes");
    let run = |variant: &Path| {
        let out = std::process::Command::new(bin)
            .args(["explore", "--base", "sv", "--variant"])
            .arg(variant)
            .arg(root().join("specs/litmus"))
            .output()
            .expect("runs");
        (out.status.code(), String::from_utf8_lossy(&out.stdout).to_string())
    };
    let (code, out) = run(&root().join("specs/libs/sv.lib"));
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("sv vs sv_variant"), "{out}");
    let (code, out) = run(&weak_file);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("LOCO-Sec3.4-sv-write-read") && out.contains("only sv_norb: T1:a=0"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `Spec::weakenings` of sv (docs/sensitivity.md, "Weakenings of sv and
/// rdmawait"): each variant keeps every outcome of sv; the loop-back broadcast
/// `Write(x, 1); Bcast(x, _, {1})` ends with x@1 = 0 exactly when so loses iso
/// (the broadcast's local read may then read its own write), rf_e (the same
/// cycle's other edge) or rb (the read may read the initial value behind the
/// po-earlier write).
#[test]
fn weakenings_of_sv_and_the_loop_back_broadcast() {
    let sv = spec("sv");
    let ws = sv.weakenings();
    let tags: Vec<&str> = ws.iter().map(|w| w.tag.as_str()).collect();
    assert_eq!(tags, ["without_cr_rb_cw", "so_minus_1", "so_minus_2", "so_minus_3", "so_minus_4", "so_minus_5"]);
    let terms: Vec<String> = ws
        .iter()
        .filter_map(|w| match &w.change {
            mowgli_spec::Change::DropSoTerm(_, t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(terms, ["iso", "pf", "rf_e", "rb", "mo"]);
    let text = "test loop-back\nlibraries sv\nthread T1 @ 1\nloc x\nT1:\n  Write(x, 1)\n  Bcast(x, _, {1})\n";
    let order = default_order();
    let base = outcomes(text, &[]).expect("runs");
    let x_zero = |os: &Outcomes| os.iter().any(|o| o.iter().any(|(k, v)| k.starts_with("x@1") && v == "0"));
    assert!(!base.is_empty() && !x_zero(&base), "{base:?}");
    let mut zero = Vec::new();
    for w in &ws {
        let weak = {
            let cat: Catalogue = vec![("sv".to_string(), w.spec.factory())].into_iter().collect();
            litmus::outcomes_of_text(text, &order, &cat, true).map_err(|e| e.render())
        }
        .expect("runs");
        assert!(base.iter().all(|o| weak.contains(o)), "{}: an outcome lost", w.tag);
        if x_zero(&weak) {
            zero.push(w.tag.as_str());
        }
    }
    assert_eq!(zero, ["so_minus_1", "so_minus_3", "so_minus_4"]);
}
