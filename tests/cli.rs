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
