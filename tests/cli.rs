//! The `mowgli` command line: exit codes, `file:line:column` diagnostics for
//! malformed files, named semantic errors, `--json`, `--stamp-order`.

use std::path::PathBuf;
use std::process::Command;

fn mowgli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mowgli")).args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn tmp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mowgli-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const SB: &str = "test SB\nlibraries rdmatso\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1\nloc y @ 1\nT1:\n  Write(x, 1)\n  a = Read(y)\nT2:\n  Write(y, 1)\n  b = Read(x)\n";

/// Runs a file that must be rejected; returns stderr.
fn rejected(name: &str, text: &str) -> String {
    let p = tmp(name, text);
    let (code, _, err) = mowgli(&["litmus", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{name}: expected exit 2, stderr: {err}");
    err
}

#[test]
fn ok_fail_and_exit_codes() {
    let ok = tmp("ok.litmus", &format!("{SB}expect allowed T1:a = 0 /\\ T2:b = 0\n"));
    let (code, out, _) = mowgli(&["litmus", ok.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("ok    expect allowed T1:a = 0 /\\ T2:b = 0"), "{out}");
    let fail = tmp("fail.litmus", &format!("{SB}expect forbidden T1:a = 0 /\\ T2:b = 0\n"));
    let (code, out, _) = mowgli(&["litmus", fail.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("FAIL  expect forbidden"), "{out}");
}

#[test]
fn json_report() {
    let ok = tmp("j.litmus", &format!("{SB}expect allowed T1:a = 0 /\\ T2:b = 0\n"));
    let (code, out, _) = mowgli(&["litmus", "--json", "--stats", ok.to_str().unwrap()]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(v["summary"]["failed"], 0);
    assert_eq!(v["tests"][0]["name"], "SB");
    assert_eq!(v["tests"][0]["outcomes"].as_array().unwrap().len(), 4);
    assert!(v["tests"][0]["stats"]["candidates"].as_u64().unwrap() > 0);
}

#[test]
fn stamp_order_option_changes_the_model() {
    // Making the Fig. 9 oppo cell B1 (1W before 1R) ordered turns RDMA^TSO's CPU part into SC:
    // store buffering becomes forbidden.
    let fig9 = include_str!("../specs/stamp-orders/rdma-fig9.to");
    let start = fig9.find("table oppo\n").unwrap();
    let end = fig9.find("table oppo_nopcie").unwrap();
    let oppo = &fig9[start..end];
    let sc = oppo.replacen("B aCW      ✗  ✓  ✓  ✓  ✗", "B aCW      ✓  ✓  ✓  ✓  ✗", 1);
    assert_ne!(sc, oppo);
    let order = tmp("sc.to", &sc);
    let t = tmp("sb.litmus", &format!("{SB}expect allowed T1:a = 0 /\\ T2:b = 0\n"));
    let (code, _, _) = mowgli(&["litmus", t.to_str().unwrap()]);
    assert_eq!(code, 0);
    let (code, out, _) = mowgli(&["litmus", "--stamp-order", order.to_str().unwrap(), t.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    // a malformed stamp order is an input error with a position
    let bad = tmp("bad.to", "table to\ncolumns aCR aCW\nA aCR ✓ ?\n");
    let (code, _, err) = mowgli(&["litmus", "--stamp-order", bad.to_str().unwrap(), t.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.to:3:9:"), "{err}");
}

#[test]
fn syntax_errors_have_file_line_column() {
    let e = rejected("s1.litmus", "test X\nlibraries rdmatso\nthread T1 @ one\n");
    assert!(e.contains("s1.litmus:3:13: expected a node"), "{e}");
    let e = rejected("s2.litmus", "thread T1 @ 1\n");
    assert!(e.contains("s2.litmus:1:1: expected `test NAME`"), "{e}");
    let e = rejected("s3.litmus", "test X\nlibraries rdmatso\nthread T1 @ 1\nloc x @ 1\nT1:\n  Write(x, 1\n");
    assert!(e.contains("s3.litmus:6:13: expected `,` or `)`"), "{e}");
    let e = rejected("s4.litmus", "test X\nexpect perhaps x = 1\n");
    assert!(e.contains("s4.litmus:2:8: expected `allowed` or `forbidden`"), "{e}");
    let e = rejected("s5.litmus", "test X\nlibraries rdmatso\n  Write(x, 1)\n");
    assert!(e.contains("s5.litmus:3:3: expected a declaration"), "{e}");
    let e = rejected("s6.litmus", "test X\nlibraries rdmatso\nloc x @ 1 = ?\n");
    assert!(e.contains("s6.litmus:3:13: unexpected character `?`"), "{e}");
    let e = rejected("s7.litmus", "test bad name!\n");
    assert!(e.contains("s7.litmus:1:6: expected a test name"), "{e}");
    let e = rejected("s8.litmus", "test X\nlibraries rdmatso\n\"late description\"\n");
    assert!(e.contains("s8.litmus:3:1: a description must come right after"), "{e}");
    let e = rejected("s9.litmus", &format!("{SB}expect allowed T1:a = \n"));
    assert!(e.contains("s9.litmus:13:23: expected a value"), "{e}");
}

#[test]
fn semantic_errors_name_the_culprit() {
    let cases: &[(&str, &str, &str)] = &[
        ("undeclared location", "T1:\n  Write(z, 1)\n", "undeclared location `z`"),
        ("unknown method", "T1:\n  Flush(x)\n", "unknown method `Flush`"),
        ("arity", "T1:\n  Write(x)\n", "`Write` takes 2 arguments, found 1"),
        ("remote local arg", "T1:\n  Write(r, 1)\n", "location `r` is on node 2, but thread `T1` runs on node 1"),
        ("unbound register", "T1:\n  Write(x, q)\n", "register `q` is not bound earlier in this thread"),
        ("binding a unit method", "T1:\n  a = Write(x, 1)\n", "`Write` returns no value"),
        ("namespace", "T1:\n  x = Read(x)\n", "`x` is already a location"),
        ("undeclared body", "T1:\nT9:\n", "body for undeclared thread `T9`"),
        ("node out of range", "T1:\n  Poll(7)\n", "node 7 is not a node of this test"),
        ("qualified with unlisted library", "T1:\n  sv.Write(x, 1)\n", "library `sv` is not listed"),
    ];
    let head = "test X\nlibraries rdmatso\nthread T1 @ 1\nloc x @ 1\nloc r @ 2\n";
    for (i, (what, body, msg)) in cases.iter().enumerate() {
        let e = rejected(&format!("m{i}.litmus"), &format!("{head}{body}"));
        assert!(e.contains(msg), "{what}: {e}");
        assert!(e.contains(&format!("m{i}.litmus:")), "{what}: no position in {e}");
    }
    // missing body
    let e = rejected("nobody.litmus", "test X\nlibraries rdmatso\nthread T1 @ 1\nthread T2 @ 1\nT1:\n");
    assert!(e.contains("nobody.litmus:4:8: thread `T2` has no body"), "{e}");
    // ambiguous method between two listed libraries, and the qualified form works
    let two = "test X\nlibraries rdmawait, sv\nthread T1 @ 1\nloc x @ 1\nloc v\nT1:\n";
    let e = rejected("amb.litmus", &format!("{two}  Write(x, 1)\n"));
    assert!(e.contains("ambiguous method `Write`: it belongs to rdmawait and sv"), "{e}");
    let ok = tmp(
        "qual.litmus",
        &format!("{two}  rdmawait.Write(x, 1)\n  sv.Write(v, 2)\nexpect allowed x = 1 /\\ v@1 = 2\n"),
    );
    let (code, out, err) = mowgli(&["litmus", ok.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    // replicated location named without a copy in a condition; RDMA method on a replicated location
    let e = rejected("rep.litmus", &format!("{two}  sv.Write(v, 2)\nexpect allowed v = 2\n"));
    assert!(e.contains("`v` is replicated"), "{e}");
    let e = rejected("rep2.litmus", &format!("{two}  rdmawait.Write(v, 2)\n"));
    assert!(e.contains("location `v` is replicated"), "{e}");
    // an unknown library
    let e = rejected("lib1.litmus", "test X\nlibraries rdma\n");
    assert!(e.contains("lib1.litmus:2:11: unknown library `rdma`"), "{e}");
    // unreadable file
    let (code, _, err) = mowgli(&["litmus", "/nonexistent/x.litmus"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/x.litmus"), "{err}");
}

/// `# DISAGREES:` notes (an extension of the format): a documented disagreement is
/// reported `known` with its note and does not fail the run.
#[test]
fn known_disagreement_passes_with_its_note() {
    // store buffering is allowed under RDMA^TSO, so `forbidden` fails: as documented
    let text = format!(
        "{SB}# the paper says forbidden\n# DISAGREES: the tool allows SB here\n# (more explanation)\nexpect forbidden T1:a = 0 /\\ T2:b = 0\n"
    );
    let p = tmp("known.litmus", &text);
    let (code, out, err) = mowgli(&["litmus", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("known expect forbidden T1:a = 0 /\\ T2:b = 0"), "{out}");
    assert!(out.contains("the tool allows SB here"), "{out}");
    assert!(!out.contains("FAIL  expect"), "{out}");
    assert!(out.contains("1 expectations: 0 ok, 1 known disagreements (documented), 0 FAIL, 0 malformed"), "{out}");
    // --quiet leaves out a test whose only problem is documented
    let (code, out, _) = mowgli(&["litmus", "--quiet", p.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(!out.contains("known expect"), "{out}");
    assert!(out.contains("1 known disagreements"), "{out}");
}

#[test]
fn stale_disagreement_note_is_fixed_and_fails() {
    // the expectation holds, so the note is stale
    let text = format!("{SB}# DISAGREES: the tool forbids SB here\nexpect allowed T1:a = 0 /\\ T2:b = 0\n");
    let p = tmp("fixed.litmus", &text);
    let (code, out, err) = mowgli(&["litmus", p.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("FIXED expect allowed T1:a = 0 /\\ T2:b = 0"), "{out}");
    assert!(out.contains("remove the # DISAGREES note"), "{out}");
    assert!(out.contains("1 expectations: 0 ok, 0 known disagreements (documented), 1 FAIL, 0 malformed"), "{out}");
    // --quiet still shows it
    let (code, out, _) = mowgli(&["litmus", "--quiet", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("FIXED expect allowed"), "{out}");
}

#[test]
fn disagreement_note_applies_only_to_the_expect_right_below_its_comment_block() {
    // a blank line between the note and the expect line: the note does not apply
    let text = format!("{SB}# DISAGREES: detached note\n\nexpect forbidden T1:a = 0 /\\ T2:b = 0\n");
    let p = tmp("detached.litmus", &text);
    let (code, out, _) = mowgli(&["litmus", p.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL  expect forbidden T1:a = 0 /\\ T2:b = 0"), "{out}");
    assert!(!out.contains("known expect"), "{out}");
    assert!(!out.contains("detached note"), "{out}");
    // a note covers one expect line, not the ones after it
    let text = format!(
        "{SB}# DISAGREES: only the first\nexpect forbidden T1:a = 0 /\\ T2:b = 0\nexpect forbidden T1:a = 1 /\\ T2:b = 1\n"
    );
    let p = tmp("next.litmus", &text);
    let (code, out, _) = mowgli(&["litmus", p.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("known expect forbidden T1:a = 0 /\\ T2:b = 0"), "{out}");
    assert!(out.contains("FAIL  expect forbidden T1:a = 1 /\\ T2:b = 1"), "{out}");
    assert!(out.contains("0 ok, 1 known disagreements (documented), 1 FAIL"), "{out}");
    // a comment on the expect line itself is not a note either
    let text = format!("{SB}expect forbidden T1:a = 0 /\\ T2:b = 0 # DISAGREES: trailing\n");
    let p = tmp("trailing.litmus", &text);
    let (code, out, _) = mowgli(&["litmus", p.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL  expect forbidden"), "{out}");
}

#[test]
fn json_reports_known_disagreements() {
    let text = format!(
        "{SB}# DISAGREES: documented\nexpect forbidden T1:a = 0 /\\ T2:b = 0\nexpect allowed T1:a = 1 /\\ T2:b = 1\n"
    );
    let p = tmp("jknown.litmus", &text);
    let (code, out, _) = mowgli(&["litmus", "--json", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let ex = &v["tests"][0]["expectations"];
    assert_eq!(ex[0]["ok"], false);
    assert_eq!(ex[0]["known"], "documented");
    assert_eq!(ex[1]["ok"], true);
    assert!(ex[1]["known"].is_null(), "{out}");
    let s = &v["summary"];
    assert_eq!(s["expectations"], 2);
    assert_eq!(s["ok"], 1);
    assert_eq!(s["known_disagreements"], 1);
    assert_eq!(s["failed"], 0);
    assert_eq!(s["malformed"], 0);
    // a stale note counts as failed, not as known
    let p = tmp("jfixed.litmus", &format!("{SB}# DISAGREES: stale\nexpect allowed T1:a = 0 /\\ T2:b = 0\n"));
    let (code, out, _) = mowgli(&["litmus", "--json", p.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(v["tests"][0]["expectations"][0]["ok"], true);
    assert_eq!(v["tests"][0]["expectations"][0]["known"], "stale");
    assert_eq!(v["summary"]["ok"], 0);
    assert_eq!(v["summary"]["known_disagreements"], 0);
    assert_eq!(v["summary"]["failed"], 1);
}

/// A directory of litmus files the project has never seen: searched recursively,
/// only `*.litmus` files are run, and the summary counts them.
#[test]
fn fresh_directory_of_new_tests() {
    let dir = std::env::temp_dir().join(format!("mowgli-cli-fresh-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    write(
        "store-buffering.litmus",
        &format!("{SB}expect allowed T1:a = 0 /\\ T2:b = 0\nexpect allowed T1:a = 1 /\\ T2:b = 1\n"),
    );
    write(
        "message-passing.litmus",
        "# message passing on one node: TSO keeps the writes and the reads in order\n\
         test MP-new\n\"message passing\"\nlibraries rdmatso\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1\nloc y @ 1\n\
         T1:\n  Write(x, 1)\n  Write(y, 1)\nT2:\n  b = Read(y)\n  c = Read(x)\n\
         expect forbidden T2:b = 1 /\\ T2:c = 0\nexpect allowed T2:b = 1 /\\ T2:c = 1\nexpect allowed T2:b = 0 /\\ T2:c = 0\n",
    );
    write(
        "sub/sv-own-write.litmus",
        "test SV-new\nlibraries sv\nthread T1 @ 1\nthread T2 @ 2\nloc x\nT1:\n  Write(x, 1)\n  a = Read(x)\nT2:\n\
         expect allowed T1:a = 1 /\\ x@1 = 1\nexpect forbidden T1:a = 0\n",
    );
    write("notes.txt", "not a litmus file\n");
    let (code, out, err) = mowgli(&["litmus", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    for name in ["test MP-new", "test SB", "test SV-new"] {
        assert!(out.contains(name), "{name}: {out}");
    }
    assert!(!out.contains("FAIL  expect"), "{out}");
    assert!(
        out.contains("summary: 3 tests, 7 expectations: 7 ok, 0 known disagreements (documented), 0 FAIL, 0 malformed"),
        "{out}"
    );
    let (code, out, _) = mowgli(&["litmus", "--json", dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(v["summary"]["tests"], 3);
    assert_eq!(v["summary"]["expectations"], 7);
    assert_eq!(v["summary"]["ok"], 7);
    assert_eq!(v["summary"]["failed"], 0);
    // files run in path order: message-passing, store-buffering, sub/sv-own-write
    let names: Vec<&str> = v["tests"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["MP-new", "SB", "SV-new"]);
    // a malformed file among them is reported and makes the exit status 2
    write("broken.litmus", "test Broken\nlibraries rdmatso\nthread T1 @ one\n");
    let (code, out, err) = mowgli(&["litmus", dir.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("broken.litmus:3:13:"), "{err}");
    assert!(
        out.contains("summary: 3 tests, 7 expectations: 7 ok, 0 known disagreements (documented), 0 FAIL, 1 malformed"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A failing `forbidden` expectation comes with a counterexample execution (text,
/// JSON and, with `--dot DIR`, a Graphviz file).
#[test]
fn failing_forbidden_expectation_shows_a_counterexample() {
    let sb = "test SBput\nlibraries rdmatso\nthread T1 @ 1\nthread T2 @ 2\nloc y @ 1\nloc x @ 2\nT1:\n  Put(x, 1)\n  a = Read(y)\nT2:\n  Put(y, 1)\n  b = Read(x)\nexpect forbidden T1:a = 0 /\\ T2:b = 0\n";
    let p = tmp("cex.litmus", sb);
    let dir = std::env::temp_dir().join(format!("mowgli-cli-dot-{}", std::process::id()));
    let (code, out, _) = mowgli(&["litmus", "--dot", dir.to_str().unwrap(), p.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("counterexample: a consistent execution with this outcome"), "{out}");
    assert!(out.contains("e1: Read(y) = 0   [e1.aCR]"), "{out}");
    assert!(out.contains("rb: e1.aCR -> e2.aNRW_1, e3.aCR -> e0.aNRW_2"), "{out}");
    let dot = std::fs::read_to_string(dir.join("SBput-l13.dot")).expect("dot file written");
    assert!(dot.starts_with("digraph execution {") && dot.contains("label=\"rb\""), "{dot}");
    let (_, json, _) = mowgli(&["litmus", "--json", p.to_str().unwrap()]);
    assert!(json.contains("\"execution\"") && json.contains("\"dot\""), "{json}");
    // a holding expectation carries no execution
    let ok = tmp("cex-ok.litmus", &sb.replace("expect forbidden", "expect allowed"));
    let (code, json, _) = mowgli(&["litmus", "--json", ok.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(!json.contains("\"execution\""), "{json}");
    let _ = std::fs::remove_dir_all(dir);
}

/// `mowgli refine`: malformed and ill-typed implementation files are rejected with
/// `file:line:column` and exit 2; a failing client exits 1.
#[test]
fn refine_errors_and_exit_codes() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let client = root.join("specs/litmus/loco/LOCO-Fig5-SB-put-GF.litmus");
    let cases: &[(&str, &str, &str)] = &[
        ("syntax", "implementation x\nimplements sv\nuses rdmawait\nmethod Read(x) {\n  let v = 1 +\n}\n", ":5:"),
        ("unknown library", "implementation x\nimplements svv\n", "unknown library `svv`"),
        ("self use", "implementation x\nimplements sv\nuses sv\n", "cannot use itself"),
        (
            "unknown method",
            "implementation x\nimplements sv\nuses rdmawait\nmethod Read(x) { Flush(x) }\n",
            "unknown method `Flush`",
        ),
        (
            "not a method of L",
            "implementation x\nimplements sv\nuses rdmawait\nmethod Frob(x) { Read(x) }\n",
            "`sv` has no method `Frob`",
        ),
        (
            "missing method",
            "implementation x\nimplements sv\nuses rdmawait\nmethod Read(x) { Read(x) }\n",
            "has no implementation",
        ),
        (
            "undeclared name",
            "implementation x\nimplements sv\nuses rdmawait\nmethod Read(x) { Read(y) }\n",
            "undeclared name `y`",
        ),
        (
            "call in expression",
            "implementation x\nimplements sv\nuses rdmawait\nmethod Read(x) { let v = 1 + Read(x) }\n",
            "cannot stand inside an expression",
        ),
        (
            "break outside loop",
            "implementation x\nimplements sv\nuses rdmawait\nmethod Read(x) { break }\n",
            "`break` outside a `loop`",
        ),
    ];
    for (i, (what, text, msg)) in cases.iter().enumerate() {
        let p = tmp(&format!("bad{i}.impl"), text);
        let (code, _, err) = mowgli(&["refine", p.to_str().unwrap(), "--clients", client.to_str().unwrap()]);
        assert_eq!(code, 2, "{what}: {err}");
        assert!(err.contains(msg), "{what}: {err}");
        assert!(err.contains(&format!("bad{i}.impl:")), "{what}: no position in {err}");
    }
    // a failing client exits 1 and shows the counterexample grouped by abstract call
    let mutant = root.join("specs/impls/mutants/isv_gf_nowait.impl");
    let (code, out, _) = mowgli(&["refine", mutant.to_str().unwrap(), "--clients", client.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("sv.GF({2})  (abstract call 0, implemented by:)"), "{out}");
    // the correct implementation passes, with JSON
    let good = root.join("specs/impls/isv.impl");
    let (code, json, _) = mowgli(&["refine", "--json", good.to_str().unwrap(), "--clients", client.to_str().unwrap()]);
    assert_eq!(code, 0, "{json}");
    assert!(json.contains("\"verdict\": \"ok\""), "{json}");
}

/// `mowgli … | head`: a closed standard output ends nothing early and panics
/// nowhere; the run ends with its verdict's exit code (issue 32, item 3).
#[test]
fn a_closed_stdout_keeps_the_verdicts_exit_code() {
    use std::io::Read;
    use std::process::Stdio;
    for (args, want) in [
        (vec!["stamp-order"], 0),
        (vec!["litmus", "../../specs/litmus/loco"], 0),
        // 6 MB of clients, far past a pipe's buffer (`--calls 3` spends 80 s generating first)
        (vec!["refine", "../../specs/impls/isv.impl", "--list-clients", "--calls", "2"], 0),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mowgli"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs");
        let mut first = [0u8; 16];
        let mut out = child.stdout.take().expect("piped");
        out.read_exact(&mut first).expect("some output");
        drop(out); // what `head -c 16` does
        let mut err = String::new();
        child.stderr.take().expect("piped").read_to_string(&mut err).expect("stderr");
        let status = child.wait().expect("exits");
        assert_eq!(status.code(), Some(want), "{args:?}: {err}");
        assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{args:?}: {err}");
    }
}

/// A test over a library the project ships as a file says how to load it (when
/// no project file lists it: the repository's `mowgli.toml` does).
#[test]
fn an_unknown_library_that_is_a_shipped_file_names_its_lib_option() {
    let out = Command::new(env!("CARGO_BIN_EXE_mowgli"))
        .current_dir("../..")
        .args(["--no-project", "litmus", "specs/clients/lock/lock-mp.litmus"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("help: `lock` is a library file: run with `--lib specs/libs/lock.lib`"), "{err}");
    for args in [&["--no-project", "--lib", "specs/libs/lock.lib"][..], &[]] {
        let out = Command::new(env!("CARGO_BIN_EXE_mowgli"))
            .current_dir("../..")
            .args(args)
            .args(["litmus", "specs/clients/lock/lock-mp.litmus"])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// The README's showcase checks give the verdicts the README states.
#[test]
fn the_readmes_showcase_checks_give_their_stated_verdicts() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_mowgli")).current_dir("../..").args(args).output().expect("runs");
        (out.status.code(), String::from_utf8_lossy(&out.stdout).to_string())
    };
    let readme = std::fs::read_to_string("../../README.md").expect("README");
    let verified = ["refine", "specs/impls/irbl.impl", "--clients", "specs/litmus/loco-libs", "specs/clients/rbl"];
    assert!(readme.contains(&format!("cargo run --release -- {}", verified.join(" "))));
    let (code, out) = run(&verified);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("3 clients, 3 ok"), "{out}");
    let failing = ["refine", "specs/impls/irbl.impl", "--clients", "specs/clients/rbl-self-read"];
    assert!(readme.contains(&format!("cargo run --release -- {}", failing.join(" "))));
    let (code, out) = run(&failing);
    assert_eq!(code, Some(1), "{out}");
}

/// `obligations` writes files only when asked (`--observe-out`); it prints the
/// observing client instead (issue 32, item 5).
#[test]
fn obligations_write_nothing_unasked() {
    let dir = std::env::temp_dir().join(format!("mowgli-unasked-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let imp = std::fs::canonicalize("../../specs/impls/irbl.impl").expect("irbl");
    let out = Command::new(env!("CARGO_BIN_EXE_mowgli"))
        .current_dir(&dir)
        .args(["obligations", imp.to_str().expect("utf-8")])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("observed by client observe-irbl-1-5calls"), "{text}");
    assert!(text.contains("    test observe-irbl-1-5calls"), "{text}");
    let written: Vec<_> = std::fs::read_dir(&dir).expect("dir").collect();
    assert!(written.is_empty(), "files written unasked: {written:?}");
}
