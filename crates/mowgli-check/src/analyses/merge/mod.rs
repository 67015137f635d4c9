//! Sharded runs (`--partition K/N`) and `mowgli merge`.
//!
//! A command that shards (`refine --calls`, `obligations`, `generate`, `explore
//! --search`, `cells`) checks only the items whose index is K−1 modulo N (its
//! clients, abstract programs, suite programs, searched programs or flipped cells;
//! [`Partition`]). Its `--json` report says which command and partition it is
//! (`"command"`, `"partition": {"k": K, "n": N}`), the options that define the run
//! (`"run"`: every shard of one run has the same), and per item enough to put the
//! shards back together in the order of an unsharded run: failures with their
//! global index, the per-program counts of `obligations`, completeness. An
//! unsharded run is partition 1/1 and has the same fields.
//!
//! [`merge`] reads the reports of shards 1..N of one run and gives the report the
//! unsharded run gives, equal to it up to the timing fields ([`TIMING`], which
//! the merge sums), with the verdict decided by the same function the command
//! uses (`decide_*` below), so the reason is the same too.
//!
//! The merge is exact for runs without `--first-fail`, `--max-tests`, `--max` or
//! a time limit (`obligations` with `--first-fail` is exact as well: the
//! per-program counts are replayed up to the first refuting program); with those
//! each shard stops on its own, and the merged counts are those the shards
//! reached (the verdict is still right: a counterexample of any shard is one, and a
//! shard that a limit stopped leaves the merged run inconclusive).

use std::collections::{BTreeMap, BTreeSet};

use mowgli_diag::{Diagnostic, Pos};
use serde_json::{json, Map, Value};

use crate::analyses::refine::gen::Partition;
use crate::analyses::verdict::{Decided, Verdict};

/// The commands that shard, as the `command` field names them.
pub const COMMANDS: [&str; 5] = ["refine", "obligations", "generate", "explore-search", "cells"];

/// Fields that measure time rather than results: the merge sums them (or
/// recomputes them from sums), and a merged report equals the unsharded one up to
/// these (at any depth; every field whose name ends in `millis`, `micros` or `_ms`
/// is one).
pub const TIMING: [&str; 3] = ["millis", "tests_per_second", "slowest"];

/// Whether `key` is a timing field ([`TIMING`]).
pub fn is_timing(key: &str) -> bool {
    key.ends_with("millis") || key.ends_with("micros") || key.ends_with("_ms") || TIMING.contains(&key)
}

/// `doc` without its timing fields, at any depth (to compare a merged report with
/// an unsharded one).
pub fn without_timing(doc: &Value) -> Value {
    match doc {
        Value::Object(m) => Value::Object(
            m.iter().filter(|(k, _)| !is_timing(k)).map(|(k, v)| (k.clone(), without_timing(v))).collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_timing).collect()),
        other => other.clone(),
    }
}

/// Adds the fields of a shardable command's report: `command`, `partition`
/// (`{"k": K, "n": N}`), `run` (the options that define the run) and `identity`
/// (digests of the tool's version, the options and each input's contents:
/// [`digest`]), for a run without input files.
pub fn stamp(doc: Value, command: &str, partition: Partition, run: Value) -> Value {
    stamp_with(doc, command, partition, run, &[])
}

/// [`stamp`] for a run whose input files (and their contents digests, from
/// [`digest::digests`]) are `inputs`; the keys of `run` named by the inputs'
/// roles hold their paths, which `identity` leaves out.
pub fn stamp_with(doc: Value, command: &str, partition: Partition, run: Value, inputs: &[(Input, String)]) -> Value {
    let mut m = match doc {
        Value::Object(m) => m,
        other => {
            let mut m = Map::new();
            m.insert("report".into(), other);
            m
        }
    };
    let roles: Vec<String> = inputs.iter().map(|(i, _)| i.role.clone()).collect();
    let options = Value::Object(digest::without_inputs(&identity(&run), &roles));
    m.insert("command".into(), Value::from(command));
    m.insert("partition".into(), json!({"k": partition.index, "n": partition.count}));
    m.insert("run".into(), run);
    m.insert("identity".into(), digest::identity(inputs, &options));
    Value::Object(m)
}

fn u(v: &Value, k: &str) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(0)
}

fn f(v: &Value, k: &str) -> f64 {
    v.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

fn b(v: &Value, k: &str) -> bool {
    v.get(k).and_then(Value::as_bool).unwrap_or(false)
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

fn arr<'a>(v: &'a Value, k: &str) -> &'a [Value] {
    v.get(k).and_then(Value::as_array).map_or(&[], |a| a.as_slice())
}

/// `" (partition K/N)"` for a shard, nothing for a whole run.
fn of_partition(doc: &Value) -> String {
    let p = &doc["partition"];
    match (p["k"].as_u64(), p["n"].as_u64()) {
        (Some(k), Some(n)) if n > 1 => format!(" (partition {k}/{n})"),
        _ => String::new(),
    }
}

/// How a generated run's first unchecked client is labelled: a limit that cut its
/// check (inconclusive) is not an error of the client.
pub fn first_error_label(inconclusive: bool) -> &'static str {
    if inconclusive {
        "first inconclusive client"
    } else {
        "first error"
    }
}

mod commands;
mod decide;
pub mod digest;
mod render;

use commands::*;
pub use decide::*;
pub use digest::Input;
pub use render::render;

/// Options of `run` that shards may set differently: the time limit.
const LIMITS: [&str; 1] = ["time_limit"];

/// The options of `run` that must be the same in every shard of one run.
fn identity(run: &Value) -> Map<String, Value> {
    let mut m = run.as_object().cloned().unwrap_or_default();
    for k in LIMITS {
        m.remove(k);
    }
    m
}

/// A shard's report, read.
struct Shard<'t> {
    file: String,
    text: &'t str,
    k: u64,
    doc: Value,
}

/// An error about a shard's report `text` (file `file`), at the first occurrence
/// of the field `key` (`""`: at its start).
fn at_key(file: &str, text: &str, key: &str, msg: String) -> Diagnostic {
    let quoted = format!("\"{key}\"");
    let found = (!key.is_empty()).then(|| text.find(&quoted)).flatten();
    let (pos, len) = match found {
        Some(i) => {
            let before = &text[..i];
            let line = before.matches('\n').count() + 1;
            let col = before[before.rfind('\n').map_or(0, |j| j + 1)..].chars().count() + 1;
            (Pos { line, col }, quoted.chars().count())
        }
        None => (Pos { line: 1, col: 1 }, 1),
    };
    Diagnostic::new(pos, msg).with_span(len).in_file(file, text)
}

/// Where serde_json places an error (its column 0: before the line's first character).
fn json_pos(e: &serde_json::Error) -> Pos {
    Pos { line: e.line().max(1), col: e.column().max(1) }
}

/// An error about the shards given together, not one file (the command line
/// shows it).
fn about_all(msg: String) -> Diagnostic {
    Diagnostic::whole_file("", msg)
}

/// Reads the reports `(file, text)` of shards 1..N of one run and merges them:
/// the merged report (with `verdict` and `verdict_reason`) and its verdict.
/// `Err` names what is wrong: unreadable JSON, a report that is not a shard's, a
/// shard missing or given twice, shards of different runs. With `partial`, missing
/// shards are allowed: the merged report lists them (`missing_shards`), says the
/// bound was not covered, and its verdict is at best `inconclusive`.
/// An error is at a field of the report it is about, or, about the shards as a
/// whole, without a file (the caller shows the command line).
pub fn merge(inputs: &[(String, String)], partial: bool) -> Result<(Value, Decided), Diagnostic> {
    if inputs.is_empty() {
        return Err(about_all("merge: expected the JSON reports of the shards of one run".into()));
    }
    let mut shards: Vec<Shard> = Vec::new();
    // reports that are empty or cut short (a shard killed before it wrote all of
    // its report): with `partial`, shards missing, named
    let mut unreadable: Vec<String> = Vec::new();
    for (file, text) in inputs {
        let doc: Value = match serde_json::from_str(text) {
            Ok(doc) => doc,
            Err(e) if partial && (e.is_eof() || text.trim().is_empty()) => {
                unreadable.push(file.clone());
                continue;
            }
            Err(e) if e.is_eof() || text.trim().is_empty() => {
                let msg = "an empty or truncated report (a shard stopped before it wrote its report?); \
                           `--partial` merges the other shards, counting it as missing";
                return Err(Diagnostic::new(json_pos(&e), msg).in_file(file, text));
            }
            Err(e) => return Err(Diagnostic::new(json_pos(&e), format!("not a JSON report: {e}")).in_file(file, text)),
        };
        let command = doc["command"].as_str().unwrap_or_default();
        if command.is_empty() && doc["verdict"].as_str() == Some("error") {
            return Err(at_key(
                file,
                text,
                "verdict",
                format!("this shard ended in an error: {}", s(&doc, "verdict_reason")),
            ));
        }
        if !COMMANDS.contains(&command) {
            let msg = format!(
                "not the `--json` report of a command that shards (no `command` field naming one of {})",
                COMMANDS.join(", ")
            );
            return Err(at_key(file, text, "command", msg));
        }
        let (Some(k), Some(n)) = (doc["partition"]["k"].as_u64(), doc["partition"]["n"].as_u64()) else {
            return Err(at_key(file, text, "partition", "the report has no `partition` {\"k\": K, \"n\": N}".into()));
        };
        if k == 0 || k > n || !doc["run"].is_object() {
            let msg = "expected a partition K/N with 1 ≤ K ≤ N and a `run` object".to_string();
            return Err(at_key(file, text, if doc["run"].is_object() { "partition" } else { "run" }, msg));
        }
        shards.push(Shard { file: file.clone(), text, k, doc });
    }
    let Some(first) = shards.first() else {
        return Err(about_all(format!(
            "no shard report can be read: {} (all empty or truncated)",
            unreadable.join(", ")
        )));
    };
    let command = s(&first.doc, "command").to_string();
    let n = u(&first.doc["partition"], "n");
    for sh in &shards[1..] {
        if s(&sh.doc, "command") != command {
            let msg = format!(
                "{} and {} are shards of different runs: `{}` and `{}`",
                first.file,
                sh.file,
                command,
                s(&sh.doc, "command")
            );
            return Err(at_key(&sh.file, sh.text, "command", msg));
        }
        if u(&sh.doc["partition"], "n") != n {
            let msg = format!(
                "{} and {} are shards of different runs: partitions of {} and of {}",
                first.file,
                sh.file,
                n,
                u(&sh.doc["partition"], "n")
            );
            return Err(at_key(&sh.file, sh.text, "partition", msg));
        }
        let roles = |d: &Value| -> Vec<String> {
            arr(&d["identity"], "inputs").iter().map(|i| s(i, "role").to_string()).collect()
        };
        let roles = [roles(&first.doc), roles(&sh.doc)].concat();
        let options_diff = || {
            let (a, b) = (identity(&first.doc["run"]), identity(&sh.doc["run"]));
            let (a, b) = (digest::without_inputs(&a, &roles), digest::without_inputs(&b, &roles));
            a.into_iter().find(|(k, v)| b.get(k.as_str()) != Some(v)).map(|(k, v)| {
                format!("`{k}` is {v} in one and {} in the other", b.get(k.as_str()).unwrap_or(&Value::Null))
            })
        };
        if let Some(why) =
            digest::differ((&first.file, &first.doc["identity"]), (&sh.file, &sh.doc["identity"]), options_diff)
        {
            return Err(at_key(&sh.file, sh.text, "identity", why));
        }
    }
    let mut seen: BTreeMap<u64, &str> = BTreeMap::new();
    for sh in &shards {
        if let Some(other) = seen.insert(sh.k, &sh.file) {
            let msg = format!("shard {}/{n} is given twice: {other} and {}", sh.k, sh.file);
            return Err(at_key(&sh.file, sh.text, "partition", msg));
        }
    }
    // every K is in 1..=N and none twice: N − (shards given) are missing
    let missing_count = n - shards.len() as u64;
    let missing_ks: Vec<u64> = (1..=n).filter(|k| !seen.contains_key(k)).take(1000).collect();
    let missing: Vec<String> = (1..=n).filter(|k| !seen.contains_key(k)).take(8).map(|k| format!("{k}/{n}")).collect();
    let missing_text = format!(
        "{}{}",
        missing.join(", "),
        if missing_count > missing.len() as u64 {
            format!(" and {} more", missing_count - missing.len() as u64)
        } else {
            String::new()
        }
    );
    if missing_count > 0 && !partial {
        return Err(about_all(format!(
            "missing shards of the run: {missing_text} (got {} of {n}; `--partial` merges the shards given, inconclusively)",
            shards.len()
        )));
    }
    // a time limit changes how far a shard gets, not what the run is: the merged
    // run states the largest one given
    let mut run = first.doc["run"].clone();
    let shards_identity = first.doc["identity"].clone();
    for k in LIMITS {
        let most = shards.iter().filter_map(|sh| sh.doc["run"][k].as_f64()).max_by(f64::total_cmp);
        if let (Some(m), Some(r)) = (most, run.as_object_mut()) {
            if r.contains_key(k) {
                r.insert(k.to_string(), Value::from(m));
            }
        }
    }
    shards.sort_by_key(|sh| sh.k);
    let docs: Vec<&Value> = shards.iter().map(|sh| &sh.doc).collect();
    let mut merged = match command.as_str() {
        "refine" => merge_refine(&docs),
        "obligations" => merge_obligations(&docs).map_err(about_all)?,
        "generate" => merge_generate(&docs),
        "explore-search" => merge_explore_search(&docs),
        _ => merge_cells(&shards.iter().map(|sh| (sh.k, &sh.doc)).collect::<Vec<_>>(), n, missing_count == 0)
            .map_err(about_all)?,
    };
    if missing_count > 0 {
        // the bound was not covered: the report's own completeness says so too
        match command.as_str() {
            "refine" => merged["generated"]["complete"] = Value::from(false),
            "explore-search" => merged["exhausted"] = Value::from(false),
            "cells" => {}
            _ => merged["complete"] = Value::from(false),
        }
        merged["missing_shards"] = json!(missing_ks);
    }
    if !unreadable.is_empty() {
        merged["unreadable_reports"] = json!(unreadable);
    }
    let mut merged = stamp(merged, &command, Partition::ALL, run);
    // the shards' identity (the same digests; the paths as the first shard gave them)
    merged["identity"] = shards_identity;
    let mut decided = decide(&command, &merged);
    if missing_count > 0 && decided.verdict <= Verdict::Inconclusive {
        decided = Decided::new(
            Verdict::Inconclusive,
            format!(
                "shards {missing_text} of {n} are missing{}: the bound was not covered",
                if unreadable.is_empty() {
                    String::new()
                } else {
                    format!(" ({} empty or truncated: {})", unreadable.len(), unreadable.join(", "))
                }
            ),
        );
    }
    // an output a shard could not write is an error of the run
    if let Some(sh) = shards.iter().find(|sh| sh.doc["verdict"].as_str() == Some("error")) {
        decided = Decided::new(Verdict::Error, format!("shard {}/{n}: {}", sh.k, s(&sh.doc, "verdict_reason")));
    }
    let doc = decided.into_json(merged);
    Ok((doc, decided))
}

/// The report fields of `doc` (without the verdict and the sharding fields).
pub(super) fn body(doc: &Value) -> Map<String, Value> {
    let mut m = doc.as_object().cloned().unwrap_or_default();
    for k in ["verdict", "verdict_reason", "command", "partition", "run", "identity"] {
        m.remove(k);
    }
    m
}

pub(super) fn sum_u(docs: &[&Value], k: &str) -> Value {
    Value::from(docs.iter().map(|d| u(d, k)).sum::<u64>())
}

pub(super) fn sum_f(docs: &[&Value], k: &str) -> Value {
    Value::from(docs.iter().map(|d| f(d, k)).sum::<f64>())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merge_all(inputs: &[(String, String)]) -> Result<(Value, Decided), String> {
        merge(inputs, false).map_err(|d| d.to_string())
    }

    #[test]
    fn timing_fields_are_removed_at_any_depth() {
        let doc = json!({"a": 1, "millis": 2.0, "x": [{"generate_millis": 1, "b": 2, "slowest": ["c", 1.0], "first_failure_ms": 3}]});
        assert_eq!(without_timing(&doc), json!({"a": 1, "x": [{"b": 2}]}));
    }

    #[test]
    fn refusals_name_the_problem() {
        let shard = |k: u64, n: u64, calls: u64| {
            (
                format!("s{k}.json"),
                stamp(
                    json!({"cells": []}),
                    "cells",
                    Partition { index: k as usize, count: n as usize },
                    json!({"calls": calls}),
                )
                .to_string(),
            )
        };
        assert!(merge_all(&[shard(1, 2, 1)]).is_err_and(|e| e.contains("missing shards of the run: 2/2")));
        // a huge N is reported, not enumerated
        let huge = shard(1, u64::MAX, 1);
        assert!(
            merge_all(&[huge]).is_err_and(|e| e.contains("2/18446744073709551615, ") && e.contains("more (got 1 of"))
        );
        assert!(merge_all(&[shard(1, 2, 1), shard(1, 2, 1)]).is_err_and(|e| e.contains("given twice")));
        assert!(merge_all(&[shard(1, 2, 1), shard(2, 2, 2)]).is_err_and(|e| e.contains("`calls` is 1 in one and 2")));
        assert!(merge_all(&[("x.json".into(), "[}".into())])
            .is_err_and(|e| e.starts_with("x.json:1:") && e.contains("not a JSON report")));
        assert!(merge_all(&[("x.json".into(), "{".into())])
            .is_err_and(|e| e.starts_with("x.json:1:") && e.contains("empty or truncated")));
        assert!(merge_all(&[("x.json".into(), "{}".into())]).is_err_and(|e| e.contains("not the `--json` report")));
        assert!(merge_all(&[shard(1, 2, 1), shard(2, 2, 1)]).is_ok());
        // --partial: what is there, never verified
        let (doc, d) = merge(&[shard(2, 3, 1)], true).expect("merges");
        assert_eq!((d.verdict, doc["missing_shards"].clone()), (Verdict::Inconclusive, json!([1, 3])));
        assert!(d.why.contains("shards 1/3, 3/3 of 3 are missing"), "{}", d.why);
    }

    #[test]
    fn cells_interleave_back_into_the_order_of_the_whole_run() {
        let shard = |k: usize, cells: Value| {
            (
                format!("s{k}.json"),
                stamp(json!({"cells": cells}), "cells", Partition { index: k, count: 2 }, json!({})).to_string(),
            )
        };
        let (doc, d) =
            merge_all(&[shard(2, json!([{"cell": "A2"}])), shard(1, json!([{"cell": "A1"}, {"cell": "A3"}]))])
                .expect("merges");
        let names: Vec<&str> = arr(&doc, "cells").iter().map(|c| s(c, "cell")).collect();
        assert_eq!(names, ["A1", "A2", "A3"]);
        assert_eq!(d.verdict, Verdict::Verified);
        assert_eq!(doc["partition"], json!({"k": 1, "n": 1}));
        // 2 cells and 0 are not the shards 1/2, 2/2 of one list of 2 cells
        assert!(merge_all(&[shard(1, json!([{"cell": "A1"}, {"cell": "A3"}])), shard(2, json!([]))]).is_err());
    }

    /// Two shards of four abstract programs, each refuting something: the merge
    /// records a failure when it is the first for one of its cells in the order of
    /// the whole run (W always), and numbers the observing clients as that run does.
    #[test]
    fn obligations_are_replayed_in_the_order_of_the_whole_run() {
        let failure = |o: &str, methods: &[&str], program: &str| json!({"obligation": o, "methods": methods, "reason": format!("{o} on {program}"), "client": format!("# {program}\n")});
        let obs = |name: &str| json!({"name": name, "client": format!("test {name}\nT1:\n")});
        let record = |index: u64, failures: &[u64]| {
            json!({"index": index, "name": format!("p{index}"), "abstract_executions": 1, "executions": 2, "classes": 0,
                   "plain_discharged": 0, "checked": [["A", "O1", 1]], "failures": failures})
        };
        let shard = |k: usize, first_fail: bool, programs: Value, failures: Value, observations: Value| {
            let doc = json!({"implementation": "imp", "implements": "sv", "uses": [], "methods": ["A", "B"],
                "map": [], "inferred": [], "abstract_programs": 4, "complete": !first_fail, "programs": programs,
                "failures": failures, "observations": observations, "specs": []});
            (
                format!("s{k}.json"),
                stamp(doc, "obligations", Partition { index: k, count: 2 }, json!({"first_fail": first_fail}))
                    .to_string(),
            )
        };
        let shards = |first_fail: bool| {
            [
                shard(
                    1,
                    first_fail,
                    json!([record(0, &[0]), record(2, &[1])]),
                    json!([failure("O1", &["A"], "p0"), failure("O1", &["A", "B"], "p2")]),
                    json!([obs("observe-imp-1-sb"), obs("observe-imp-2-mp")]),
                ),
                shard(
                    2,
                    first_fail,
                    json!([record(1, &[0, 1]), record(3, &[2])]),
                    json!([failure("O1", &["A"], "p1"), failure("W", &["A"], "p1"), failure("W", &["A"], "p3")]),
                    json!([obs("observe-imp-1-lb"), obs("observe-imp-2-iriw"), obs("observe-imp-3-wrc")]),
                ),
            ]
        };
        let (doc, d) = merge_all(&shards(false)).expect("merges");
        assert_eq!(d.verdict, Verdict::Counterexample);
        let reasons: Vec<&str> = arr(&doc, "failures").iter().map(|f| s(f, "reason")).collect();
        // p1's O1 on A comes after p0's: not recorded; p3's W is, though A's W cell
        // already has p1's
        assert_eq!(reasons, ["O1 on p0", "W on p1", "O1 on p2", "W on p3"]);
        assert_eq!(doc["cells"]["A"]["O1"], json!({"checked": 4, "failure": 0}));
        assert_eq!(doc["cells"]["A"]["W"]["failure"], 1);
        assert_eq!(doc["cells"]["B"]["O1"]["failure"], 2);
        assert!(doc["cells"]["B"]["W"]["failure"].is_null());
        let per: Vec<Value> = arr(&doc, "programs").iter().map(|p| p["failures"].clone()).collect();
        assert_eq!(per, [json!([0]), json!([1]), json!([2]), json!([3])]);
        let names: Vec<&str> = arr(&doc, "observations").iter().map(|o| s(o, "name")).collect();
        assert_eq!(names, ["observe-imp-1-sb", "observe-imp-2-iriw", "observe-imp-3-mp", "observe-imp-4-wrc"]);
        assert!(s(&arr(&doc, "observations")[2], "client").starts_with("test observe-imp-3-mp\n"));
        assert_eq!((u(&doc, "clients"), u(&doc, "executions"), b(&doc, "complete")), (4, 8, true));
        // --first-fail: the whole run stops after p0, the first refuting program
        let (doc, _) = merge_all(&shards(true)).expect("merges");
        assert_eq!((u(&doc, "clients"), arr(&doc, "failures").len(), b(&doc, "complete")), (1, 1, false));
    }
}
