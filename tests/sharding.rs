//! Sharded runs (`--partition K/N`) and `mowgli merge` (issue 11, item 8), through
//! the built binary: for each command that shards, the shards of a small bound in
//! 2 and in 3, merged, give the JSON report of the unsharded run (up to the
//! timing fields) and its exit status; `merge` refuses what is not the shards
//! 1..N of one run (exit 2), and a shard that a limit stopped leaves the merged
//! run inconclusive (exit 3).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

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

/// A directory of this test process for the shards' reports.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mowgli-sharding-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// `doc` without the fields that measure time (`*millis`, `*micros`, `*_ms`,
/// `tests_per_second`, `slowest`), at any depth.
fn untimed(doc: &Value) -> Value {
    let timing = |k: &str| {
        k.ends_with("millis")
            || k.ends_with("micros")
            || k.ends_with("_ms")
            || k == "tests_per_second"
            || k == "slowest"
    };
    match doc {
        Value::Object(m) => {
            Value::Object(m.iter().filter(|(k, _)| !timing(k)).map(|(k, v)| (k.clone(), untimed(v))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(untimed).collect()),
        v => v.clone(),
    }
}

fn json_of(args: &[&str]) -> (i32, Value) {
    let (code, out, err) = mowgli(args);
    let doc = serde_json::from_str(&out).unwrap_or_else(|e| panic!("mowgli {}: {e}\n{out}\n{err}", args.join(" ")));
    (code, doc)
}

/// Writes the reports of shards 1..=n of `mowgli ARGS --json --partition K/N` into
/// a fresh directory and returns their paths.
fn shards(args: &[&str], n: usize, name: &str) -> Vec<String> {
    let d = dir(name);
    (1..=n)
        .map(|k| {
            let part = format!("{k}/{n}");
            let mut a = args.to_vec();
            a.extend(["--json", "--partition", &part]);
            let (code, out, err) = mowgli(&a);
            assert!(code == 0 || code == 1, "mowgli {}: exit {code}\n{err}", a.join(" "));
            let doc: Value = serde_json::from_str(&out).expect("a JSON report");
            assert_eq!(doc["partition"], serde_json::json!({"k": k, "n": n}), "{}", a.join(" "));
            let p = d.join(format!("shard-{k}.json"));
            std::fs::write(&p, out).expect("written");
            p.to_str().expect("utf-8").to_string()
        })
        .collect()
}

/// `mowgli ARGS --json` unsharded, and sharded in 2 and in 3 then merged: the same
/// exit status, the same report up to timing. Returns the unsharded report.
fn merged_is_unsharded(args: &[&str], code: i32, name: &str) -> Value {
    let mut whole = args.to_vec();
    whole.push("--json");
    let (c, unsharded) = json_of(&whole);
    assert_eq!(c, code, "mowgli {}: {}", whole.join(" "), unsharded["verdict_reason"]);
    assert_eq!(unsharded["partition"], serde_json::json!({"k": 1, "n": 1}));
    for n in [2, 3] {
        let files = shards(args, n, &format!("{name}-{n}"));
        // in any order
        let mut merge: Vec<&str> = vec!["merge", "--json"];
        merge.extend(files.iter().rev().map(|s| s.as_str()));
        let (c, merged) = json_of(&merge);
        assert_eq!(c, code, "merge of {n} shards of {}: {}", args.join(" "), merged["verdict_reason"]);
        let (a, b) = (untimed(&unsharded), untimed(&merged));
        if a != b {
            let keys: Vec<&String> = a
                .as_object()
                .expect("an object")
                .iter()
                .filter(|(k, v)| b.get(k.as_str()) != Some(v))
                .map(|(k, _)| k)
                .collect();
            panic!("{} in {n} shards: the merged report differs from the unsharded one in {keys:?}", args.join(" "));
        }
        // the human report of the merge ends with the same verdict
        let files: Vec<&str> = files.iter().map(|s| s.as_str()).collect();
        let (c, human, _) = mowgli(&[&["merge"][..], &files].concat());
        assert_eq!(c, code);
        let last = human.lines().last().unwrap_or_default();
        assert_eq!(
            last,
            format!(
                "verdict: {} ({})",
                unsharded["verdict"].as_str().unwrap_or(""),
                unsharded["verdict_reason"].as_str().unwrap_or("")
            )
        );
    }
    unsharded
}

#[test]
fn refine_generated_clients() {
    let doc = merged_is_unsharded(&["refine", "specs/impls/isv.impl", "--calls", "2", "--jobs", "1"], 0, "refine");
    assert!(doc["generated"]["checked"].as_u64() > Some(1000), "{}", doc["generated"]["checked"]);
    // GF without its wait: a failing client, found by one shard
    let doc = merged_is_unsharded(
        &[
            "refine",
            "specs/impls/mutants/isv_gf_nowait.impl",
            "--threads",
            "1",
            "--calls",
            "3",
            "--locs",
            "0",
            "--observer",
            "rdmawait",
            "--jobs",
            "1",
        ],
        1,
        "refine-fail",
    );
    // three failing clients since the observer draws every rdmawait method (its
    // puts with local sources besides literals, CAS expecting 0)
    assert_eq!(doc["generated"]["failures"].as_array().map(Vec::len), Some(3));
}

#[test]
fn obligations() {
    // the explicit engine: its counts are the same however the programs are split
    // (under `auto`, the default, which engine checks a program depends on the
    // times measured, and the two engines count discharges differently)
    let doc = merged_is_unsharded(
        &["obligations", "specs/impls/isv.impl", "--calls", "1", "--engine", "explicit"],
        0,
        "obligations",
    );
    assert_eq!(doc["programs"].as_array().map(Vec::len), Some(50));
    // under `auto`: the same verdict and programs, merged
    let auto = ["obligations", "specs/impls/isv.impl", "--calls", "1"];
    let (code, whole) = json_of(&[&auto[..], &["--json"]].concat());
    let files = shards(&auto, 2, "obligations-auto");
    let (c, merged) =
        json_of(&[&["merge", "--json"][..], &files.iter().map(|s| s.as_str()).collect::<Vec<_>>()].concat());
    let names = |d: &Value| -> Vec<Value> {
        d["programs"].as_array().map(|ps| ps.iter().map(|p| p["name"].clone()).collect()).unwrap_or_default()
    };
    assert_eq!((c, &merged["verdict"], names(&merged)), (code, &whole["verdict"], names(&whole)));
    assert_eq!(names(&whole).len(), 50);
    // refuted, with the client that observes it (numbered as the whole run numbers it)
    let mutant = [
        "obligations",
        "specs/impls/mutants/isv_gf_nowait.impl",
        "--threads",
        "1",
        "--calls",
        "3",
        "--engine",
        "explicit",
    ];
    let out = dir("observed");
    let out = out.to_str().expect("utf-8");
    let doc =
        merged_is_unsharded(&[&mutant[..], &["--observe-budget", "5", "--observe-out", out]].concat(), 1, "obl-fail");
    assert_eq!(doc["observations"].as_array().map(Vec::len), doc["failures"].as_array().map(Vec::len));
    assert!(!doc["failures"].as_array().expect("failures").is_empty());
    // --first-fail: the merge replays the programs up to the first refuting one
    let doc = merged_is_unsharded(&[&mutant[..], &["--first-fail", "--observe-budget", "0"]].concat(), 1, "obl-first");
    assert_eq!(doc["complete"], false);
    // D, each library's checked by one shard
    merged_is_unsharded(
        &["obligations", "specs/impls/isv.impl", "--calls", "1", "--check-specs", "--engine", "explicit"],
        0,
        "obl-d",
    );
}

#[test]
fn generate() {
    let doc = merged_is_unsharded(&["generate", "--instrs", "1", "--libs", "rdmatso,sv", "--jobs", "1"], 0, "generate");
    assert!(doc["tests"].as_u64() > Some(29), "{}", doc["tests"]);
}

#[test]
fn explore_search() {
    let fig10 = "specs/stamp-orders/loco-fig10.to";
    let i9 = "specs/stamp-orders/variants/fig10-I9-unordered.to";
    let search =
        ["explore", "--base", fig10, "--variant", i9, "--search", "--lib", "rdmawait", "--instrs", "2", "--jobs", "1"];
    // nothing tells I9 apart with two locations: every size searched
    let doc = merged_is_unsharded(&[&search[..], &["--locs", "2"]].concat(), 0, "search");
    assert_eq!(doc["exhausted"], true);
    // with three: the smallest distinguishing programs, some in each shard; the shards
    // that found none at that size searched further, which the merge leaves out
    let doc = merged_is_unsharded(&[&search[..], &["--locs", "3"]].concat(), 1, "search-found");
    assert!(doc["found"].as_array().is_some_and(|f| f.len() > 1));
}

#[test]
fn cells() {
    let doc =
        merged_is_unsharded(&["cells", "--no-impls", "--only", "K11,I9,A1,B2,C3", "specs/litmus/loco"], 0, "cells");
    let names: Vec<&str> = doc["cells"].as_array().expect("cells").iter().filter_map(|c| c["cell"].as_str()).collect();
    assert_eq!(names, ["K11", "I9", "A1", "B2", "C3"]);
}

#[test]
fn merge_refuses_what_is_not_one_run() {
    let run = ["obligations", "specs/impls/isv.impl", "--calls", "1"];
    let three = shards(&run, 3, "refuse");
    let (a, b, c) = (three[0].as_str(), three[1].as_str(), three[2].as_str());
    let refused = |files: &[&str], what: &str| {
        let (code, out, err) = mowgli(&[&["merge"][..], files].concat());
        assert_eq!(code, 2, "merge {files:?}: {out}");
        assert!(
            err.contains(what) && out.ends_with(&format!("({})\n", err.lines().next().unwrap_or_default())),
            "merge {files:?}: `{err}` `{out}`"
        );
        assert!(out.starts_with("verdict: error"), "{out}");
    };
    refused(&[a, c], "missing shards of the run: 2/3");
    // --partial merges what is there, and the bound is then not covered: never verified
    let (code, doc) = json_of(&["merge", "--partial", "--json", a, c]);
    assert_eq!(code, 3, "{}", doc["verdict_reason"]);
    assert_eq!((doc["missing_shards"].clone(), doc["complete"].clone()), (serde_json::json!([2]), Value::from(false)));
    assert!(doc["verdict_reason"].as_str().is_some_and(|r| r.contains("shards 2/3 of 3 are missing")), "{doc}");
    let cells = shards(&["cells", "--no-impls", "--only", "K11,I9,A1,B2,C3", "specs/litmus/loco"], 3, "partial-cells");
    let (code, doc) = json_of(&["merge", "--partial", "--json", &cells[2], &cells[0]]);
    assert_eq!(code, 3, "{}", doc["verdict_reason"]);
    let names: Vec<&str> = doc["cells"].as_array().expect("cells").iter().filter_map(|c| c["cell"].as_str()).collect();
    assert_eq!(names, ["K11", "A1", "B2"]);
    // a counterexample in the shards given is one
    let mutant = ["obligations", "specs/impls/mutants/isv_gf_nowait.impl", "--threads", "1", "--calls", "3"];
    let failing = shards(&[&mutant[..], &["--observe-budget", "0"]].concat(), 2, "partial-fail");
    let with_failure: Vec<&String> = failing
        .iter()
        .filter(|f| std::fs::read_to_string(f).is_ok_and(|t| t.contains("\"verdict\": \"counterexample\"")))
        .collect();
    assert!(!with_failure.is_empty());
    let (code, doc) = json_of(&["merge", "--partial", "--json", with_failure[0]]);
    assert_eq!((code, doc["verdict"].as_str()), (1, Some("counterexample")), "{}", doc["verdict_reason"]);
    refused(&[a, b, b, c], "shard 2/3 is given twice");
    // shards of another bound
    let other = shards(&["obligations", "specs/impls/isv.impl", "--calls", "1", "--threads", "1"], 3, "refuse-other");
    refused(&[a, &other[1], c], "are shards of different runs: `threads` is 2 in one and 1 in the other");
    // of another command
    let gen = shards(&["generate", "--instrs", "1", "--jobs", "1"], 3, "refuse-gen");
    refused(&[a, &gen[1], c], "are shards of different runs: `obligations` and `generate`");
    // not JSON, or not a shard's report
    let d = dir("refuse-bad");
    let bad = d.join("bad.json");
    std::fs::write(&bad, "{\"command\": \"cells\",").expect("written");
    refused(&[a, b, bad.to_str().expect("utf-8")], "empty or truncated");
    std::fs::write(&bad, "[\"command\"}").expect("written");
    refused(&[a, b, bad.to_str().expect("utf-8")], "not a JSON report");
    let litmus = d.join("litmus.json");
    let (_, out, _) = mowgli(&["litmus", "--json", "specs/litmus/loco/LOCO-Fig3a-put-wait.litmus"]);
    std::fs::write(&litmus, out).expect("written");
    refused(&[litmus.to_str().expect("utf-8")], "not the `--json` report of a command that shards");
    // a bad partition is a usage error of the shard
    let (code, _, err) = mowgli(&["obligations", "specs/impls/isv.impl", "--partition", "0/2"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("expected a partition `K/N`"), "{err}");
}

#[test]
fn an_incomplete_shard_makes_the_merge_inconclusive() {
    // 114,495 clients: 0.01 s covers neither half; the shards may have different limits
    let d = dir("incomplete");
    let mut files = Vec::new();
    for (k, limit) in [(1, "0.01"), (2, "0.02")] {
        let part = format!("{k}/2");
        let (code, out, _) = mowgli(&[
            "refine",
            "specs/impls/isv.impl",
            "--calls",
            "3",
            "--time-limit",
            limit,
            "--partition",
            &part,
            "--json",
        ]);
        assert_eq!(code, 3, "{out}");
        let p = d.join(format!("shard-{k}.json"));
        std::fs::write(&p, out).expect("written");
        files.push(p.to_str().expect("utf-8").to_string());
    }
    let (code, doc) = json_of(&["merge", "--json", &files[0], &files[1]]);
    assert_eq!(code, 3, "{}", doc["verdict_reason"]);
    assert_eq!(doc["verdict"], "inconclusive");
    assert_eq!(
        (doc["generated"]["complete"].as_bool(), doc["generated"]["timed_out"].as_bool()),
        (Some(false), Some(true))
    );
    assert!(doc["verdict_reason"].as_str().is_some_and(|r| r.contains("the bound was not covered")));
    // one shard complete, one stopped by its limit: still inconclusive, never verified
    let run = ["obligations", "specs/impls/isv.impl", "--calls", "1"];
    let whole = shards(&run, 2, "incomplete-obl");
    let (code, out, _) = mowgli(&[&run[..], &["--partition", "2/2", "--timeout", "0", "--json"]].concat());
    assert_eq!(code, 3, "{out}");
    let late = d.join("late.json");
    std::fs::write(&late, out).expect("written");
    let (code, doc) = json_of(&["merge", "--json", &whole[0], late.to_str().expect("utf-8")]);
    assert_eq!(code, 3, "{}", doc["verdict_reason"]);
    assert_eq!(doc["complete"], false);
}

/// A shard killed before it wrote its report leaves an empty or truncated file:
/// `merge` says so (exit 2) and `merge --partial` counts it as missing, naming it
/// (inconclusive, exit 3).
#[test]
fn an_empty_or_truncated_shard_is_missing_with_partial() {
    let d = dir("killed");
    let one = d.join("shard-1.json");
    let (code, out, err) = mowgli(&["refine", "specs/impls/isv.impl", "--calls", "2", "--partition", "1/2", "--json"]);
    assert_eq!(code, 0, "{err}");
    std::fs::write(&one, &out).expect("write");
    for (name, text) in [("empty.json", String::new()), ("cut.json", out[..out.len() / 2].to_string())] {
        let two = d.join(name);
        std::fs::write(&two, &text).expect("write");
        let (a, b) = (one.to_str().expect("utf-8"), two.to_str().expect("utf-8"));
        let (code, _, err) = mowgli(&["merge", a, b]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains("empty or truncated") && err.contains("--partial"), "{name}: {err}");
        let (code, out, err) = mowgli(&["merge", "--partial", a, b]);
        assert_eq!(code, 3, "{name}: {out}{err}");
        assert!(out.contains("2/2") && out.contains(name), "{name}: {out}");
    }
}

/// Shards are identified by the digest of their inputs' contents, options and the
/// tool's version (issue 32, item 4): the same file under two spellings of its
/// path is one input; another file swapped in at the same path is refused, with
/// the input that differs named.
#[test]
fn shards_are_identified_by_their_inputs_contents() {
    let (code, one) = json_of(&["obligations", "specs/impls/isv.impl", "--calls", "1", "--partition", "1/2", "--json"]);
    assert_eq!(code, 0);
    let (code, two) =
        json_of(&["obligations", "./specs/impls/isv.impl", "--calls", "1", "--partition", "2/2", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(one["identity"]["digest"], two["identity"]["digest"]);
    assert_eq!(one["identity"]["inputs"][0]["role"], "implementation");
    let d = dir("identity");
    let (a, b) = (d.join("a.json"), d.join("b.json"));
    std::fs::write(&a, one.to_string()).expect("written");
    std::fs::write(&b, two.to_string()).expect("written");
    let (a, b) = (a.to_str().expect("utf-8"), b.to_str().expect("utf-8"));
    let (code, out, err) = mowgli(&["merge", a, b]);
    assert_eq!(code, 0, "{out}{err}");
    // a mutant swapped in at the same path between the two shards
    let imp = d.join("imp.impl");
    let imp_path = imp.to_str().expect("utf-8");
    let shard = |source: &str, k: &str| {
        std::fs::copy(root().join(source), &imp).expect("copied");
        let (_, doc) =
            json_of(&["obligations", imp_path, "--calls", "1", "--observe-budget", "0", "--partition", k, "--json"]);
        let p = d.join(format!("swap-{}.json", &k[..1]));
        std::fs::write(&p, doc.to_string()).expect("written");
        p.to_str().expect("utf-8").to_string()
    };
    let first = shard("specs/impls/isv.impl", "1/2");
    let second = shard("specs/impls/mutants/isv_gf_nowait.impl", "2/2");
    for partial in [false, true] {
        let mut args = vec!["merge", first.as_str(), second.as_str()];
        if partial {
            args.insert(1, "--partial");
        }
        let (code, out, err) = mowgli(&args);
        assert_eq!(code, 2, "{out}{err}");
        assert!(
            err.contains("are shards of different runs: input `implementation` differs")
                && err.contains(&format!("`{imp_path}` has different contents")),
            "{err}"
        );
    }
    // a library file given with --lib is an input too
    let lib = d.join("sv.lib");
    let lib_path = lib.to_str().expect("utf-8");
    let with_lib = |text: &str, k: &str| {
        std::fs::write(&lib, text).expect("written");
        let (_, doc) =
            json_of(&["--lib", lib_path, "generate", "--instrs", "1", "--libs", "sv", "--partition", k, "--json"]);
        let p = d.join(format!("lib-{}.json", &k[..1]));
        std::fs::write(&p, doc.to_string()).expect("written");
        p.to_str().expect("utf-8").to_string()
    };
    let sv = std::fs::read_to_string(root().join("specs/libs/sv.lib")).expect("read");
    let first = with_lib(&sv, "1/2");
    let second = with_lib(&format!("{sv}\n# a comment changes the contents\n"), "2/2");
    let (code, _, err) = mowgli(&["merge", &first, &second]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("input `lib` differs"), "{err}");
}
