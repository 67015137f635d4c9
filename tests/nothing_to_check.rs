//! Exact, or inconclusive, never silently less (issue 29): a run that checks
//! nothing is not `verified`. A directory without tests is an input error (exit 2)
//! for every command that reads tests; a litmus test with no outcome cannot vouch
//! for its expectations (exit 1, or 3 when the unrolling bound cut it); a refine
//! client the specification has no execution of is reported as such.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `mowgli ARGS` in the repository root: (exit status, stdout, stderr).
fn mowgli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mowgli")).current_dir(root()).args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A fresh directory of this test process.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mowgli-nothing-{}", std::process::id())).join(name);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("written");
    p.to_str().expect("utf-8").to_string()
}

/// Every command that reads litmus tests, as its arguments before the paths.
const READERS: &[&[&str]] = &[
    &["litmus"],
    &["robust"],
    &["robust", "--to-star"],
    &["explore", "--base", "rdmatso", "--variant", "rdmatso_nopcie"],
    &["refine", "specs/impls/isv.impl", "--clients"],
    &["cells", "--no-impls"],
    &["axioms", "specs/libs/sv.lib", "--no-search"],
];

/// `args` then `path` must exit 2 (also with `--json`, whose verdict is `error`),
/// naming the directory and what was looked for.
fn refused(args: &[&str], path: &str) {
    let mut full: Vec<&str> = args.to_vec();
    full.push(path);
    let (code, out, err) = mowgli(&full);
    let what = full.join(" ");
    assert_eq!(code, 2, "mowgli {what}:\n{out}\n{err}");
    assert!(err.contains(&format!("no `*.litmus` files under `{path}`")), "mowgli {what}: {err}");
    assert!(out.lines().last().unwrap_or_default().starts_with("verdict: error"), "mowgli {what}: {out}");
    full.push("--json");
    let (code, out, _) = mowgli(&full);
    assert_eq!(code, 2, "mowgli {what} --json: {out}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{what} --json: {e}\n{out}"));
    assert_eq!(doc["verdict"], "error", "{what} --json");
}

#[test]
fn an_empty_directory_is_refused_by_every_command() {
    let empty = dir("empty");
    for args in READERS {
        refused(args, empty.to_str().expect("utf-8"));
    }
}

#[test]
fn a_directory_without_litmus_files_is_refused_by_every_command() {
    let other = dir("other");
    write(&other, "notes.txt", "no tests here\n");
    for args in READERS {
        refused(args, other.to_str().expect("utf-8"));
    }
    // the implementations' directory holds `.impl` files, no tests
    for args in READERS {
        refused(args, "specs/impls");
    }
    let (_, _, err) = mowgli(&["litmus", "specs/impls"]);
    assert!(err.contains("other files, e.g. `specs/impls/"), "{err}");
}

#[test]
fn one_path_without_tests_among_others_is_refused() {
    let empty = dir("empty-among");
    let (code, _, err) =
        mowgli(&["litmus", "specs/litmus/loco/LOCO-Fig5-SB-put-GF.litmus", empty.to_str().expect("utf-8")]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn runs_with_nothing_to_compare_are_refused() {
    // library models compare the base library's tests: an rdmasc test is none of them
    let (code, _, err) = mowgli(&[
        "explore",
        "--base",
        "rdmatso",
        "--variant",
        "rdmatso_nopcie",
        "specs/litmus/robustness/ROB-AppB1-SB-SC.litmus",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("none of the 1 tests given uses `rdmatso`"), "{err}");
    let (code, _, err) = mowgli(&["cells", "--no-impls"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nothing to check"), "{err}");
    let (code, _, err) = mowgli(&["axioms", "specs/libs/sv.lib", "--no-search"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nothing to check"), "{err}");
}

/// A library whose only method can never be part of a consistent execution.
const NEVER: &str = "library never\nstamps aCR\nmethod Nope() {\n  stamps aCR\n}\nempty Nope as never_consistent\n";

/// A read of a location nobody writes: `T1:a = 1` is forbidden, and holds, unless
/// `CALL` makes the program inconsistent.
fn reader(call: &str, expect: &str) -> String {
    format!("test Reader\nlibraries never, rdmatso\nthread T1 @ 1\nloc x @ 1\nT1:\n{call}  a = Read(x)\n{expect}\n")
}

#[test]
fn a_test_with_no_outcome_fails_and_says_why() {
    let d = dir("no-outcome");
    let lib = write(&d, "never.lib", NEVER);
    // without the call, the forbidden line holds: the test can pass
    let plain = write(&d, "plain.litmus", &reader("", "expect forbidden T1:a = 1"));
    let (code, out, err) = mowgli(&["--lib", &lib, "litmus", &plain]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("ok    expect forbidden T1:a = 1"), "{out}");
    // with it, no execution is consistent: the same line is not `ok`, the run fails
    let empty = write(&d, "empty.litmus", &reader("  Nope()\n", "expect forbidden T1:a = 1"));
    let (code, out, err) = mowgli(&["--lib", &lib, "litmus", &empty]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("EMPTY expect forbidden T1:a = 1"), "{out}");
    assert!(out.contains("no outcome: no consistent execution"), "{out}");
    assert!(out.lines().last().unwrap_or_default().starts_with("verdict: counterexample"), "{out}");
    assert!(!out.contains("ok    expect"), "{out}");
    let (code, out, _) = mowgli(&["--lib", &lib, "litmus", "--json", &empty]);
    assert_eq!(code, 1, "{out}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(doc["verdict"], "counterexample");
    assert!(doc["tests"][0]["no_outcome"].as_str().is_some_and(|s| s.contains("no consistent execution")), "{doc}");
    assert_eq!(doc["tests"][0]["expectations"][0]["ok"], false);
    assert_eq!(doc["tests"][0]["expectations"][0]["no_outcome"], true);
    assert_eq!(doc["summary"]["no_outcome"], 1);
    assert_eq!(doc["summary"]["ok"], 0);
    assert_eq!(doc["summary"]["unchecked"], 1);
}

#[test]
fn a_test_that_says_it_has_no_outcome_passes() {
    let d = dir("expected-empty");
    let lib = write(&d, "never.lib", NEVER);
    let t = write(&d, "t.litmus", &reader("  Nope()\n", "expect forbidden true"));
    let (code, out, err) = mowgli(&["--lib", &lib, "litmus", &t]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("ok    expect forbidden true"), "{out}");
    // and `forbidden true` fails on a test that has an outcome
    let t = write(&d, "u.litmus", &reader("", "expect forbidden true"));
    let (code, out, _) = mowgli(&["--lib", &lib, "litmus", &t]);
    assert_eq!(code, 1, "{out}");
}

#[test]
fn no_outcome_within_the_unrolling_bound_is_inconclusive() {
    let d = dir("bounded-empty");
    // rdmatso reads are not read-only: the loop is unrolled, and no run leaves it
    let t = write(
        &d,
        "spin.litmus",
        "test Spin\nlibraries rdmatso\nthread T1 @ 1\nloc y @ 1\nT1:\n  loop {\n    b = Read(y)\n    if b == 1 { break }\n  }\nexpect forbidden T1:b = 2\n",
    );
    let (code, out, err) = mowgli(&["litmus", &t]);
    assert_eq!(code, 3, "{out}\n{err}");
    assert!(out.contains("EMPTY expect forbidden T1:b = 2"), "{out}");
    assert!(out.contains("unrolling bound"), "{out}");
    assert!(out.lines().last().unwrap_or_default().starts_with("verdict: inconclusive"), "{out}");
}

#[test]
fn the_paper_suite_has_no_unintended_empty_test() {
    let (code, out, err) = mowgli(&["litmus", "specs/litmus", "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(doc["summary"]["no_outcome"], 0, "{}", doc["summary"]);
}

#[test]
fn a_client_the_specification_has_no_execution_of_is_reported_vacuous() {
    let d = dir("spec-vacuous");
    // sv with GF never consistent: a client calling GF has no specification outcome
    let sv = std::fs::read_to_string(root().join("specs/libs/sv.lib")).expect("reads sv.lib");
    let lib = write(&d, "sv.lib", &format!("{sv}\nempty GF as no_gf\n"));
    let client = "specs/litmus/loco/LOCO-Fig5-SB-put-GF.litmus";
    // the same client with the built-in sv passes
    let (code, out, _) = mowgli(&["refine", "specs/impls/isv.impl", "--clients", client]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("specification has no consistent execution"), "{out}");
    let (code, out, err) = mowgli(&["--lib", &lib, "refine", "specs/impls/isv.impl", "--clients", client]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("warning: the specification has no consistent execution on this client (vacuous)"), "{out}");
    assert!(out.contains("1 specification-vacuous"), "{out}");
    let (code, out, _) = mowgli(&["--lib", &lib, "refine", "--json", "specs/impls/isv.impl", "--clients", client]);
    assert_eq!(code, 1, "{out}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(doc["clients"][0]["spec_vacuous"], true, "{doc}");
    assert_eq!(doc["clients"][0]["vacuous"], false, "{doc}");
    assert_eq!(doc["summary"]["spec_vacuous"], 1, "{doc}");
}
