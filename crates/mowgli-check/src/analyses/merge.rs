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
/// (`{"k": K, "n": N}`) and `run` (the options that define the run).
pub fn stamp(doc: Value, command: &str, partition: Partition, run: Value) -> Value {
    let mut m = match doc {
        Value::Object(m) => m,
        other => {
            let mut m = Map::new();
            m.insert("report".into(), other);
            m
        }
    };
    m.insert("command".into(), Value::from(command));
    m.insert("partition".into(), json!({"k": partition.index, "n": partition.count}));
    m.insert("run".into(), run);
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

/// Appended to the reason of a verified run where a loop reached the unrolling
/// bound (docs/user-guide.md, "Verdicts and exit codes").
pub const BOUNDED: &str = "; bounded: a loop reached the unrolling bound";

/// The verdict of `mowgli refine --calls` from its report (`generated`: the
/// `GenReport`), with `write_errors` outputs that could not be written.
pub fn decide_refine(doc: &Value, write_errors: usize) -> Decided {
    let g = &doc["generated"];
    let covered = b(g, "complete") && !b(g, "timed_out") && u(g, "errors") == 0;
    let verdict = Verdict::of(write_errors > 0, u(g, "failed") > 0, covered);
    let reached = match arr(g, "classes").last() {
        Some(c) => {
            format!("in sizes 1..={} of 1..={}", u(c, "size"), u(&g["bounds"], "threads") * u(&g["bounds"], "calls"))
        }
        None => "before the first size class".to_string(),
    };
    let why = match verdict {
        Verdict::Error => format!("{write_errors} outputs could not be written"),
        Verdict::Counterexample => format!(
            "{} of {} clients checked reach an outcome the specification forbids",
            u(g, "failed"),
            u(g, "checked")
        ),
        Verdict::Inconclusive if b(g, "timed_out") => format!(
            "the time limit stopped the run after {} clients checked, {reached}: the bound was not covered",
            u(g, "checked")
        ),
        Verdict::Inconclusive => format!(
            "{} clients could not be checked (first: {}): the bound was not covered",
            u(g, "errors"),
            g["first_error"].as_str().unwrap_or("?")
        ),
        _ => format!(
            "all {} clients of the bound{} checked, none reaches an outcome the specification forbids{}",
            u(g, "checked"),
            of_partition(doc),
            if u(g, "bounded") > 0 { BOUNDED } else { "" }
        ),
    };
    Decided::new(verdict, why)
}

/// The verdict of `mowgli obligations` from its report.
pub fn decide_obligations(doc: &Value) -> Decided {
    let failures = arr(doc, "failures").len();
    // D fails when monotonicity fails or decomposability fails in both readings of so
    let d_fails =
        arr(doc, "specs").iter().any(|d| !d["not_monotone"].is_null() || !d["not_decomposable_sup"].is_null());
    let specs_complete = arr(doc, "specs").iter().all(|d| b(d, "complete"));
    let complete = b(doc, "complete");
    let verdict = Verdict::of(false, failures > 0 || d_fails, complete && specs_complete);
    let why = match verdict {
        Verdict::Counterexample => {
            format!("{failures} obligations refuted{}", if d_fails { ", D fails" } else { "" })
        }
        Verdict::Inconclusive if !complete => format!(
            "stopped after {} of {} abstract programs{}{}: the bound was not covered",
            u(doc, "clients"),
            u(doc, "abstract_programs"),
            of_partition(doc),
            if doc["run"]["timeout"].is_null() { "" } else { " (time limit)" }
        ),
        Verdict::Inconclusive => "D (--check-specs) stopped early (time limit): the bound was not covered".to_string(),
        _ => format!(
            "every obligation holds on the {} abstract programs of the bound{}{}",
            u(doc, "clients"),
            of_partition(doc),
            if b(doc, "bounded") { BOUNDED } else { "" }
        ),
    };
    Decided::new(verdict, why)
}

/// The verdict of `mowgli generate` from its report, with `unwritten` test files
/// that could not be written.
pub fn decide_generate(doc: &Value, unwritten: usize) -> Decided {
    let complete = b(doc, "complete");
    let verdict = Verdict::of(unwritten > 0, false, complete && u(doc, "error_count") == 0);
    let reached = arr(doc, "libraries")
        .last()
        .map(|l| format!("{} up to size {}", s(l, "library"), arr(l, "classes").last().map_or(0, |c| u(c, "size"))))
        .unwrap_or_default();
    let why = match verdict {
        Verdict::Error => format!("{unwritten} test files could not be written"),
        Verdict::Inconclusive if !complete => format!(
            "--max-tests stopped the suite after {} tests ({reached}): the bound was not covered",
            u(doc, "tests")
        ),
        Verdict::Inconclusive => format!(
            "the outcomes of {} programs could not be computed (first: {}): the bound was not covered",
            u(doc, "error_count"),
            arr(doc, "errors").first().and_then(Value::as_str).unwrap_or("?")
        ),
        _ => format!("{} tests: every program up to the bounds{}", u(doc, "tests"), of_partition(doc)),
    };
    Decided::new(verdict, why)
}

/// The verdict of `mowgli explore --search` from its report; `write_error`: the
/// distinguishing tests could not be written.
pub fn decide_explore_search(doc: &Value, write_error: bool) -> Decided {
    let found = arr(doc, "found");
    let errors = arr(doc, "errors");
    // a distinguishing program is the counterexample to the models' agreement;
    // programs that could not be run leave the bound uncovered
    let verdict = Verdict::of(write_error, !found.is_empty(), b(doc, "exhausted") && errors.is_empty());
    let why = match verdict {
        Verdict::Error => "the distinguishing tests could not be written".to_string(),
        Verdict::Counterexample => format!(
            "{} programs of {} instructions tell the models apart",
            found.len(),
            found.first().map_or(0, |d| u(d, "size"))
        ),
        Verdict::Inconclusive => format!(
            "{} programs could not be run (first: {}): the bound was not covered",
            errors.len(),
            errors.first().and_then(Value::as_str).unwrap_or("?")
        ),
        _ => format!(
            "no program up to the bounds tells the models apart ({} run under both{})",
            u(doc, "checked"),
            of_partition(doc).replace(" (", ", ").replace(')', "")
        ),
    };
    Decided::new(verdict, why)
}

/// The verdict of `mowgli cells` from its report.
pub fn decide_cells(doc: &Value) -> Decided {
    let cells = arr(doc, "cells");
    let base_checks = arr(doc, "base_checks");
    let errors: usize = cells.iter().map(|c| arr(c, "errors").len()).sum::<usize>()
        + arr(doc, "candidate_errors").len()
        + base_checks.iter().filter(|c| !c["error"].is_null()).count();
    // the flips are measured against the base order, under which every implementation
    // check is meant to hold: a check refuted there is a counterexample (printed)
    let refuted = base_checks.iter().filter(|c| c["error"].is_null() && !b(c, "holds")).count();
    let verdict = Verdict::of(errors > 0, refuted > 0, true);
    let why = match verdict {
        Verdict::Error => format!("{errors} tests or checks could not be run"),
        Verdict::Counterexample => format!("{refuted} implementation checks are refuted under the base order itself"),
        _ => format!(
            "{} cells flipped{}; every implementation check holds under the base order",
            cells.len(),
            of_partition(doc)
        ),
    };
    Decided::new(verdict, why)
}

/// The verdict of a report of `command`, as the command decides it (nothing
/// unwritten: a merge writes no files).
pub fn decide(command: &str, doc: &Value) -> Decided {
    match command {
        "refine" => decide_refine(doc, 0),
        "obligations" => decide_obligations(doc),
        "generate" => decide_generate(doc, 0),
        "explore-search" => decide_explore_search(doc, false),
        _ => decide_cells(doc),
    }
}

/// Options of `run` that shards may set differently: the time limits.
const LIMITS: [&str; 2] = ["timeout", "time_limit"];

/// The options of `run` that must be the same in every shard of one run.
fn identity(run: &Value) -> Map<String, Value> {
    let mut m = run.as_object().cloned().unwrap_or_default();
    for k in LIMITS {
        m.remove(k);
    }
    m
}

/// A shard's report, read.
struct Shard {
    file: String,
    k: u64,
    doc: Value,
}

/// Reads the reports `(file, text)` of shards 1..N of one run and merges them:
/// the merged report (with `verdict` and `verdict_reason`) and its verdict.
/// `Err` names what is wrong: unreadable JSON, a report that is not a shard's, a
/// shard missing or given twice, shards of different runs. With `partial`, missing
/// shards are allowed: the merged report lists them (`missing_shards`), says the
/// bound was not covered, and its verdict is at best `inconclusive`.
pub fn merge(inputs: &[(String, String)], partial: bool) -> Result<(Value, Decided), String> {
    if inputs.is_empty() {
        return Err("merge: expected the JSON reports of the shards of one run".into());
    }
    let mut shards: Vec<Shard> = Vec::new();
    for (file, text) in inputs {
        let doc: Value = serde_json::from_str(text)
            .map_err(|e| format!("{file}:{}:{}: not a JSON report: {e}", e.line(), e.column()))?;
        let command = doc["command"].as_str().unwrap_or_default();
        if command.is_empty() && doc["verdict"].as_str() == Some("error") {
            return Err(format!("{file}:1:1: this shard ended in an error: {}", s(&doc, "verdict_reason")));
        }
        if !COMMANDS.contains(&command) {
            return Err(format!(
                "{file}:1:1: not the `--json` report of a command that shards (no `command` field naming one of {})",
                COMMANDS.join(", ")
            ));
        }
        let (Some(k), Some(n)) = (doc["partition"]["k"].as_u64(), doc["partition"]["n"].as_u64()) else {
            return Err(format!("{file}:1:1: the report has no `partition` {{\"k\": K, \"n\": N}}"));
        };
        if k == 0 || k > n || !doc["run"].is_object() {
            return Err(format!("{file}:1:1: expected a partition K/N with 1 ≤ K ≤ N and a `run` object"));
        }
        shards.push(Shard { file: file.clone(), k, doc });
    }
    let first = &shards[0];
    let command = s(&first.doc, "command").to_string();
    let n = u(&first.doc["partition"], "n");
    for sh in &shards[1..] {
        if s(&sh.doc, "command") != command {
            return Err(format!(
                "{} and {} are shards of different runs: `{}` and `{}`",
                first.file,
                sh.file,
                command,
                s(&sh.doc, "command")
            ));
        }
        if u(&sh.doc["partition"], "n") != n {
            return Err(format!(
                "{} and {} are shards of different runs: partitions of {} and of {}",
                first.file,
                sh.file,
                n,
                u(&sh.doc["partition"], "n")
            ));
        }
        if identity(&sh.doc["run"]) != identity(&first.doc["run"]) {
            let diff = identity(&first.doc["run"])
                .into_iter()
                .find(|(k, v)| sh.doc["run"].get(k.as_str()) != Some(v))
                .map(|(k, v)| format!(": `{k}` is {v} in one and {} in the other", sh.doc["run"][k.as_str()]))
                .unwrap_or_default();
            return Err(format!("{} and {} are shards of different runs{diff}", first.file, sh.file));
        }
    }
    let mut seen: BTreeMap<u64, &str> = BTreeMap::new();
    for sh in &shards {
        if let Some(other) = seen.insert(sh.k, &sh.file) {
            return Err(format!("shard {}/{n} is given twice: {other} and {}", sh.k, sh.file));
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
        return Err(format!(
            "missing shards of the run: {missing_text} (got {} of {n}; `--partial` merges the shards given, inconclusively)",
            shards.len()
        ));
    }
    // a time limit changes how far a shard gets, not what the run is: the merged
    // run states the largest one given
    let mut run = first.doc["run"].clone();
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
        "obligations" => merge_obligations(&docs)?,
        "generate" => merge_generate(&docs),
        "explore-search" => merge_explore_search(&docs),
        _ => merge_cells(&shards.iter().map(|sh| (sh.k, &sh.doc)).collect::<Vec<_>>(), n, missing_count == 0)?,
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
    let merged = stamp(merged, &command, Partition::ALL, run);
    let mut decided = decide(&command, &merged);
    if missing_count > 0 && decided.verdict <= Verdict::Inconclusive {
        decided = Decided::new(
            Verdict::Inconclusive,
            format!("shards {missing_text} of {n} are missing: the bound was not covered"),
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
fn body(doc: &Value) -> Map<String, Value> {
    let mut m = doc.as_object().cloned().unwrap_or_default();
    for k in ["verdict", "verdict_reason", "command", "partition", "run"] {
        m.remove(k);
    }
    m
}

fn sum_u(docs: &[&Value], k: &str) -> Value {
    Value::from(docs.iter().map(|d| u(d, k)).sum::<u64>())
}

fn sum_f(docs: &[&Value], k: &str) -> Value {
    Value::from(docs.iter().map(|d| f(d, k)).sum::<f64>())
}

/// Per size class, merged over the shards: `same` fields from any shard (the
/// largest), `add` fields summed; sorted by size.
fn merge_classes(lists: &[&[Value]], same: &[&str], add: &[&str]) -> Vec<Value> {
    let mut by_size: BTreeMap<u64, Map<String, Value>> = BTreeMap::new();
    for list in lists {
        for c in list.iter() {
            let e = by_size.entry(u(c, "size")).or_insert_with(|| {
                let mut m = c.as_object().cloned().unwrap_or_default();
                for k in add {
                    m.insert(k.to_string(), Value::from(0u64));
                }
                m
            });
            for k in same {
                let v = u(c, k).max(e.get(*k).and_then(Value::as_u64).unwrap_or(0));
                e.insert(k.to_string(), Value::from(v));
            }
            for k in add {
                let v = u(c, k) + e.get(*k).and_then(Value::as_u64).unwrap_or(0);
                e.insert(k.to_string(), Value::from(v));
            }
        }
    }
    by_size.into_values().map(Value::Object).collect()
}

fn merge_refine(docs: &[&Value]) -> Value {
    let gens: Vec<&Value> = docs.iter().map(|d| &d["generated"]).collect();
    let mut g = gens[0].as_object().cloned().unwrap_or_default();
    g.insert("partition".into(), json!({"index": 1, "count": 1}));
    for k in ["checked", "ok", "failed", "vacuous", "vacuity_unknown", "screened", "screened_all", "bounded", "errors"]
    {
        g.insert(k.into(), sum_u(&gens, k));
    }
    for k in ["generated", "distinct"] {
        g.insert(k.into(), Value::from(gens.iter().map(|x| u(x, k)).max().unwrap_or(0)));
    }
    let first_error = gens
        .iter()
        .filter(|x| !x["first_error_index"].is_null())
        .min_by_key(|x| u(x, "first_error_index"))
        .map(|x| (x["first_error"].clone(), x["first_error_index"].clone()));
    let (fe, fi) = first_error.unwrap_or((Value::Null, Value::Null));
    g.insert("first_error".into(), fe);
    g.insert("first_error_index".into(), fi);
    g.insert("complete".into(), Value::from(gens.iter().all(|x| b(x, "complete"))));
    g.insert("timed_out".into(), Value::from(gens.iter().any(|x| b(x, "timed_out"))));
    let lists: Vec<&[Value]> = gens.iter().map(|x| arr(x, "classes")).collect();
    g.insert("classes".into(), Value::Array(merge_classes(&lists, &["generated", "distinct"], &["checked", "failed"])));
    let mut failures: Vec<Value> = gens.iter().flat_map(|x| arr(x, "failures").iter().cloned()).collect();
    failures.sort_by_key(|x| u(x, "index"));
    g.insert("failures".into(), Value::Array(failures));
    g.insert("millis".into(), sum_f(&gens, "millis"));
    let slowest = gens
        .iter()
        .filter_map(|x| x["slowest"].as_array().filter(|a| a.len() == 2))
        .max_by(|a, b| a[1].as_f64().unwrap_or(0.0).total_cmp(&b[1].as_f64().unwrap_or(0.0)))
        .map(|a| Value::Array(a.clone()))
        .unwrap_or(Value::Null);
    g.insert("slowest".into(), slowest);
    let mut m = body(docs[0]);
    m.insert("generated".into(), Value::Object(g));
    Value::Object(m)
}

/// The number after `observe-IMP-` in an observation's name, replaced by `number`.
fn renumber(o: &Value, imp: &str, number: usize) -> Value {
    let prefix = format!("observe-{imp}-");
    let Some(name) = o["name"].as_str() else { return o.clone() };
    let Some(rest) = name.strip_prefix(&prefix) else { return o.clone() };
    let Some((_, tail)) = rest.split_once('-') else { return o.clone() };
    let new = format!("{prefix}{number}-{tail}");
    let mut o = o.clone();
    if let Some(text) = o["client"].as_str() {
        o["client"] = Value::from(text.replacen(&format!("test {name}\n"), &format!("test {new}\n"), 1));
    }
    o["name"] = Value::from(new);
    o
}

/// Replays the abstract programs of every shard in the order of the whole bound,
/// as `obligations::check_clients` accumulates them.
fn merge_obligations(docs: &[&Value]) -> Result<Value, String> {
    for (i, d) in docs.iter().enumerate().skip(1) {
        for k in ["map", "inferred", "methods", "abstract_programs"] {
            if d[k] != docs[0][k] {
                return Err(format!(
                    "shards 1 and {} of the obligations run differ in `{k}` ({} and {}): {}",
                    i + 1,
                    docs[0][k],
                    d[k],
                    if k == "inferred" {
                        "their concretisation maps were inferred differently; declare the inferred entries in the implementation file and run the shards again"
                    } else {
                        "not shards of one run"
                    }
                ));
            }
        }
    }
    let first_fail = b(&docs[0]["run"], "first_fail");
    let total = u(docs[0], "abstract_programs");
    let methods: Vec<String> = arr(docs[0], "methods").iter().filter_map(|m| m.as_str().map(String::from)).collect();
    const OBLIGATIONS: [&str; 5] = ["W", "O0", "O1", "O2", "O3"];
    let mut cells: BTreeMap<String, BTreeMap<&str, (u64, Option<usize>)>> =
        methods.iter().map(|m| (m.clone(), OBLIGATIONS.iter().map(|o| (*o, (0, None))).collect())).collect();
    // every program record, with its shard
    let mut records: Vec<(u64, usize, &Value)> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        for r in arr(d, "programs") {
            records.push((u(r, "index"), i, r));
        }
    }
    records.sort_by_key(|r| r.0);
    if let Some(w) = records.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(format!("abstract program {} is in shards {} and {}", w[0].0, w[0].1 + 1, w[1].1 + 1));
    }
    let mut failures: Vec<Value> = Vec::new();
    let mut origin: Vec<(usize, usize)> = Vec::new();
    let mut programs: Vec<Value> = Vec::new();
    let (mut abs, mut execs, mut classes, mut discharged) = (0u64, 0u64, 0u64, 0u64);
    let mut complete = docs.iter().all(|d| b(d, "complete"));
    for (index, shard, r) in &records {
        abs += u(r, "abstract_executions");
        execs += u(r, "executions");
        classes += u(r, "classes");
        discharged += u(r, "plain_discharged");
        for c in arr(r, "checked") {
            let (Some(m), Some(o), Some(n)) = (c[0].as_str(), c[1].as_str(), c[2].as_u64()) else { continue };
            if let Some(cell) = cells.get_mut(m).and_then(|row| row.get_mut(o)) {
                cell.0 += n;
            }
        }
        let mut mine = Vec::new();
        for fi in arr(r, "failures").iter().filter_map(Value::as_u64) {
            let Some(fv) = arr(docs[*shard], "failures").get(fi as usize) else {
                return Err(format!("shard {}: program {index} names failure {fi}, which it does not have", shard + 1));
            };
            let o = s(fv, "obligation");
            let mut first = false;
            for m in arr(fv, "methods").iter().filter_map(Value::as_str) {
                if let Some(cell) = cells.get_mut(m).and_then(|row| row.get_mut(o)) {
                    if cell.1.is_none() {
                        cell.1 = Some(failures.len());
                        first = true;
                    }
                }
            }
            // W (an error of the implementation on the program) is always recorded
            if first || o == "W" {
                mine.push(failures.len());
                failures.push(fv.clone());
                origin.push((*shard, fi as usize));
            }
        }
        let mut rec = (*r).clone();
        rec["failures"] = json!(mine);
        programs.push(rec);
        if first_fail && !failures.is_empty() {
            // the unsharded run stops before the next program, if there is one
            complete = index + 1 == total;
            break;
        }
    }
    let mut m = body(docs[0]);
    let cells_json: Map<String, Value> = cells
        .into_iter()
        .map(|(meth, row)| {
            let row: Map<String, Value> = row
                .into_iter()
                .map(|(o, (checked, failure))| (o.to_string(), json!({"checked": checked, "failure": failure})))
                .collect();
            (meth, Value::Object(row))
        })
        .collect();
    m.insert("cells".into(), Value::Object(cells_json));
    // each failure's observing client, numbered as the unsharded run numbers them
    let imp = s(docs[0], "implementation");
    let mut observations = Vec::new();
    if docs.iter().any(|d| !arr(d, "observations").is_empty()) {
        for (j, (shard, fi)) in origin.iter().enumerate() {
            let fv = &failures[j];
            let prior = failures[..j].iter().position(|p| p["client"] == fv["client"] && p["reason"] == fv["reason"]);
            let Some(o) = arr(docs[*shard], "observations").get(*fi) else {
                return Err(format!("shard {}: failure {fi} has no observation", shard + 1));
            };
            observations.push(renumber(o, imp, prior.unwrap_or(j) + 1));
        }
    }
    m.insert("failures".into(), Value::Array(failures));
    m.insert("observations".into(), Value::Array(observations));
    m.insert("programs".into(), Value::Array(programs.clone()));
    m.insert("clients".into(), Value::from(programs.len()));
    m.insert("abstract_executions".into(), Value::from(abs));
    m.insert("executions".into(), Value::from(execs));
    m.insert("classes".into(), Value::from(classes));
    m.insert("plain_discharged".into(), Value::from(discharged));
    m.insert("bounded".into(), Value::from(docs.iter().any(|d| b(d, "bounded"))));
    m.insert("complete".into(), Value::from(complete));
    m.insert("millis".into(), sum_f(docs, "millis"));
    // the time to the first refutation: the soonest any shard found one
    let first = docs.iter().filter_map(|d| d["first_failure_ms"].as_f64()).min_by(f64::total_cmp);
    m.insert("first_failure_ms".into(), first.map_or(Value::Null, Value::from));
    // D: each library was checked by one shard; in the order of the whole run
    let libs = crate::analyses::obligations::spec::libraries_of(
        s(docs[0], "implements"),
        &arr(docs[0], "uses").iter().filter_map(|x| x.as_str().map(String::from)).collect::<Vec<_>>(),
    );
    let mut specs: Vec<Value> = docs.iter().flat_map(|d| arr(d, "specs").iter().cloned()).collect();
    specs.sort_by_key(|d| libs.iter().position(|l| l == s(d, "library")).unwrap_or(usize::MAX));
    m.insert("specs".into(), Value::Array(specs));
    Ok(Value::Object(m))
}

fn merge_generate(docs: &[&Value]) -> Value {
    let mut m = body(docs[0]);
    // the libraries, in the order of the run, each with its classes merged
    let mut names: Vec<String> = Vec::new();
    for d in docs {
        for l in arr(d, "libraries") {
            if !names.iter().any(|n| n == s(l, "library")) {
                names.push(s(l, "library").to_string());
            }
        }
    }
    let mut libraries = Vec::new();
    for name in &names {
        let of: Vec<&Value> =
            docs.iter().flat_map(|d| arr(d, "libraries").iter().filter(|l| s(l, "library") == name)).collect();
        let lists: Vec<&[Value]> = of.iter().map(|l| arr(l, "classes")).collect();
        let classes = merge_classes(&lists, &["generated", "distinct"], &["tests", "outcomes", "no_execution"]);
        let total = |k: &str| classes.iter().map(|c| u(c, k)).sum::<u64>();
        libraries.push(json!({
            "library": name,
            "generated": total("generated"),
            "distinct": total("distinct"),
            "tests": total("tests"),
            "outcomes": total("outcomes"),
            "classes": classes,
        }));
    }
    let total = |k: &str| libraries.iter().map(|l| u(l, k)).sum::<u64>();
    let (generated, distinct, tests) = (total("generated"), total("distinct"), total("tests"));
    m.insert("generated".into(), Value::from(generated));
    m.insert("distinct".into(), Value::from(distinct));
    m.insert("dedup_factor".into(), Value::from(if distinct > 0 { generated as f64 / distinct as f64 } else { 0.0 }));
    m.insert("tests".into(), Value::from(tests));
    m.insert("outcomes".into(), Value::from(total("outcomes")));
    m.insert("max_outcomes".into(), Value::from(docs.iter().map(|d| u(d, "max_outcomes")).max().unwrap_or(0)));
    m.insert("no_execution".into(), sum_u(docs, "no_execution"));
    m.insert("libraries".into(), Value::Array(libraries));
    // the first ten errors of the whole suite are among the first ten of each shard
    let mut errors: Vec<(u64, Value)> = docs
        .iter()
        .flat_map(|d| {
            arr(d, "error_indices").iter().zip(arr(d, "errors")).map(|(i, e)| (i.as_u64().unwrap_or(0), e.clone()))
        })
        .collect();
    errors.sort_by_key(|e| e.0);
    errors.truncate(10);
    m.insert("errors".into(), Value::Array(errors.iter().map(|e| e.1.clone()).collect()));
    m.insert("error_indices".into(), json!(errors.iter().map(|e| e.0).collect::<Vec<_>>()));
    m.insert("error_count".into(), sum_u(docs, "error_count"));
    m.insert("complete".into(), Value::from(docs.iter().all(|d| b(d, "complete"))));
    for k in ["generate_millis", "outcome_millis", "millis"] {
        m.insert(k.into(), sum_f(docs, k));
    }
    let millis = docs.iter().map(|d| f(d, "millis")).sum::<f64>();
    m.insert("tests_per_second".into(), Value::from(tests as f64 / (millis / 1000.0).max(1e-9)));
    Value::Object(m)
}

fn merge_explore_search(docs: &[&Value]) -> Value {
    let mut m = body(docs[0]);
    // the search stops at the smallest size class where some shard found a program
    let stop = docs.iter().flat_map(|d| arr(d, "found").iter().map(|x| u(x, "size"))).min();
    let keep = |size: u64| stop.is_none_or(|s| size <= s);
    let lists: Vec<Vec<Value>> =
        docs.iter().map(|d| arr(d, "classes").iter().filter(|c| keep(u(c, "size"))).cloned().collect()).collect();
    let lists: Vec<&[Value]> = lists.iter().map(|l| l.as_slice()).collect();
    let mut classes = merge_classes(&lists, &["generated", "distinct"], &["checked", "distinguishing"]);
    let max = docs[0]["run"]["max"].as_u64().map_or(usize::MAX, |x| x as usize);
    let mut found: Vec<Value> =
        docs.iter().flat_map(|d| arr(d, "found").iter().filter(|x| Some(u(x, "size")) == stop).cloned()).collect();
    found.sort_by_key(|x| u(x, "index"));
    found.truncate(max);
    if let (Some(st), Some(last)) = (stop, classes.last_mut()) {
        if u(last, "size") == st {
            last["distinguishing"] = Value::from(found.len());
        }
    }
    // the index range of each class kept: errors beyond them are left out
    let end: u64 = classes.iter().map(|c| u(c, "distinct")).sum();
    let mut errors: Vec<(u64, Value)> = docs
        .iter()
        .flat_map(|d| {
            arr(d, "error_indices").iter().zip(arr(d, "errors")).map(|(i, e)| (i.as_u64().unwrap_or(0), e.clone()))
        })
        .filter(|e| e.0 < end)
        .collect();
    errors.sort_by_key(|e| e.0);
    m.insert("checked".into(), Value::from(classes.iter().map(|c| u(c, "checked")).sum::<u64>()));
    m.insert("found".into(), Value::Array(found));
    m.insert("exhausted".into(), Value::from(stop.is_none() && docs.iter().all(|d| b(d, "exhausted"))));
    m.insert("errors".into(), Value::Array(errors.iter().map(|e| e.1.clone()).collect()));
    m.insert("error_indices".into(), json!(errors.iter().map(|e| e.0).collect::<Vec<_>>()));
    m.insert("millis".into(), sum_f(docs, "millis"));
    classes.sort_by_key(|c| u(c, "size"));
    m.insert("classes".into(), Value::Array(classes));
    Value::Object(m)
}

/// Cell j of shard K is cell K−1 + j·N of the whole run. `shards`: (K, report),
/// by K; with `all`, every shard is there and the cells must fill 0..T.
fn merge_cells(shards: &[(u64, &Value)], n: u64, all: bool) -> Result<Value, String> {
    let mut placed: Vec<(u64, Value)> = Vec::new();
    for (k, d) in shards {
        for (j, c) in arr(d, "cells").iter().enumerate() {
            placed.push(((k - 1).saturating_add((j as u64).saturating_mul(n)), c.clone()));
        }
    }
    placed.sort_by_key(|c| c.0);
    if all {
        if let Some(i) = placed.iter().enumerate().position(|(i, c)| c.0 != i as u64) {
            return Err(format!(
                "cell {i} of the whole run is in no shard (the shards have {} cells): the shards do not fit together",
                placed.len()
            ));
        }
    }
    let docs: Vec<&Value> = shards.iter().map(|s| s.1).collect();
    let mut m = body(docs[0]);
    m.insert("cells".into(), Value::Array(placed.into_iter().map(|c| c.1).collect()));
    m.insert("millis".into(), sum_f(&docs, "millis"));
    Ok(Value::Object(m))
}

/// The human report of a merged run: what was merged, the findings, the summary,
/// then the verdict line.
pub fn render(doc: &Value, shards: usize, decided: &Decided) -> String {
    let mut out = String::new();
    let command = s(doc, "command");
    out += &format!("merged {shards} shards of one `mowgli {}` run\n", command.replace("-search", " --search"));
    match command {
        "refine" => {
            let g = &doc["generated"];
            for c in arr(g, "classes") {
                out += &format!(
                    "  size {:2}: {:8} generated, {:7} distinct, {:7} checked, {} FAIL\n",
                    u(c, "size"),
                    u(c, "generated"),
                    u(c, "distinct"),
                    u(c, "checked"),
                    u(c, "failed")
                );
            }
            if let Some(f) = arr(g, "failures").first() {
                out += &format!("first failing client (index {}, {} calls):\n", u(f, "index"), u(f, "size"));
                for l in s(f, "text").lines() {
                    out += &format!("  {l}\n");
                }
            }
            if let Some(e) = g["first_error"].as_str() {
                out += &format!("first error: {e}\n");
            }
            out += &format!(
                "summary: implementation `{}` of `{}`: {} clients generated, {} after symmetry reduction, {} checked: {} ok, {} FAIL, {} errors{}\n",
                s(doc, "implementation"),
                s(doc, "implements"),
                u(g, "generated"),
                u(g, "distinct"),
                u(g, "checked"),
                u(g, "ok"),
                u(g, "failed"),
                u(g, "errors"),
                if b(g, "complete") { "" } else { " (stopped early)" }
            );
        }
        "obligations" => {
            const OBLIGATIONS: [&str; 5] = ["W", "O0", "O1", "O2", "O3"];
            out += &format!("{:12}", "method");
            for o in OBLIGATIONS {
                out += &format!(" {o:>14}");
            }
            out += "\n";
            for m in arr(doc, "methods").iter().filter_map(Value::as_str) {
                out += &format!("{m:12}");
                for o in OBLIGATIONS {
                    let c = &doc["cells"][m][o];
                    let cell = match c["failure"].as_u64() {
                        Some(i) => format!("FAIL (#{})", i + 1),
                        None if u(c, "checked") == 0 => "-".to_string(),
                        None if b(doc, "complete") => format!("ok ({})", u(c, "checked")),
                        None => format!("ok? ({})", u(c, "checked")),
                    };
                    out += &format!(" {cell:>14}");
                }
                out += "\n";
            }
            for (i, f) in arr(doc, "failures").iter().enumerate() {
                out += &format!(
                    "\n#{} {} refuted for {}: {}\n",
                    i + 1,
                    s(f, "obligation"),
                    arr(f, "methods").iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "),
                    s(f, "reason")
                );
                out += "  abstract program:\n";
                for l in s(f, "client").lines().filter(|l| !l.starts_with('#') && !l.starts_with('"')) {
                    out += &format!("    {l}\n");
                }
                if let Some(name) = doc["observations"].get(i).and_then(|o| o["name"].as_str()) {
                    out += &format!("  observed by client {name} (in the merged JSON report, `observations`)\n");
                }
            }
            out += &format!(
                "\nsummary: {} of {} abstract programs, {} abstract executions, {} implementation executions; {} obligations refuted{}\n",
                u(doc, "clients"),
                u(doc, "abstract_programs"),
                u(doc, "abstract_executions"),
                u(doc, "executions"),
                arr(doc, "failures").len(),
                if b(doc, "complete") { "" } else { " (stopped early: the bound was not covered)" }
            );
            for d in arr(doc, "specs") {
                out += &format!(
                    "D (Def. 3.5) for `{}`: monotone {}; decomposable {}\n",
                    s(d, "library"),
                    d["not_monotone"].as_str().map_or("holds".to_string(), |w| format!("FAILS: {w}")),
                    d["not_decomposable_sup"].as_str().map_or("holds".to_string(), |w| format!("FAILS: {w}"))
                );
            }
        }
        "generate" => {
            for l in arr(doc, "libraries") {
                for c in arr(l, "classes") {
                    out += &format!(
                        "  {} size {:2}: {:8} generated, {:7} distinct, {:7} tests, {} outcomes\n",
                        s(l, "library"),
                        u(c, "size"),
                        u(c, "generated"),
                        u(c, "distinct"),
                        u(c, "tests"),
                        u(c, "outcomes")
                    );
                }
            }
            for e in arr(doc, "errors").iter().filter_map(Value::as_str) {
                out += &format!("error: {e}\n");
            }
            out += &format!(
                "summary: {} programs generated, {} distinct, {} tests, {} outcomes (at most {} per test), {} without executions{}\n",
                u(doc, "generated"),
                u(doc, "distinct"),
                u(doc, "tests"),
                u(doc, "outcomes"),
                u(doc, "max_outcomes"),
                u(doc, "no_execution"),
                if b(doc, "complete") { "" } else { " (stopped early)" }
            );
        }
        "explore-search" => {
            for d in arr(doc, "found") {
                out += &format!(
                    "{} ({} instructions): {} outcomes under {}, {} under {}\n",
                    s(d, "name"),
                    u(d, "size"),
                    u(d, "base_outcomes"),
                    s(doc, "base"),
                    u(d, "variant_outcomes"),
                    s(doc, "variant")
                );
                for (side, k) in [(s(doc, "base"), "only_base"), (s(doc, "variant"), "only_variant")] {
                    for o in arr(d, k).iter().filter_map(Value::as_str) {
                        out += &format!("  only {side}: {o}\n");
                    }
                }
            }
            for e in arr(doc, "errors").iter().filter_map(Value::as_str) {
                out += &format!("error: {e}\n");
            }
            let per: Vec<String> =
                arr(doc, "classes").iter().map(|c| format!("{}: {}", u(c, "size"), u(c, "checked"))).collect();
            out += &format!(
                "summary: {} vs {} over {}: {} programs run under both (per size {}), {} distinguishing{}\n",
                s(doc, "base"),
                s(doc, "variant"),
                s(doc, "library"),
                u(doc, "checked"),
                per.join(", "),
                arr(doc, "found").len(),
                if b(doc, "exhausted") { " (every size up to the bounds searched)" } else { "" }
            );
        }
        _ => {
            for c in arr(doc, "cells") {
                let changed = arr(c, "changed").len();
                let broken: Vec<&str> = arr(c, "broken").iter().map(|x| s(x, "check")).collect();
                if changed == 0 && broken.is_empty() && arr(c, "errors").is_empty() {
                    continue;
                }
                out += &format!(
                    "{:4} ({}, {}): {changed} tests change{}{}\n",
                    s(c, "cell"),
                    s(c, "earlier"),
                    s(c, "later"),
                    if broken.is_empty() { String::new() } else { format!("; breaks {}", broken.join(", ")) },
                    if arr(c, "errors").is_empty() {
                        String::new()
                    } else {
                        format!("; {} errors", arr(c, "errors").len())
                    }
                );
            }
            let cells = arr(doc, "cells");
            let unchanged: BTreeSet<&str> = cells
                .iter()
                .filter(|c| arr(c, "changed").is_empty() && arr(c, "broken").is_empty())
                .map(|c| s(c, "cell"))
                .collect();
            out += &format!(
                "summary: table `{}`: {} cells flipped, {} change a test, {} break a check, {} change nothing; {} candidate tests, {} checks\n",
                s(doc, "table"),
                cells.len(),
                cells.iter().filter(|c| !arr(c, "changed").is_empty()).count(),
                cells.iter().filter(|c| !arr(c, "broken").is_empty()).count(),
                unchanged.len(),
                u(doc, "candidates"),
                arr(doc, "base_checks").len()
            );
        }
    }
    out += &decided.line();
    out += "\n";
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merge_all(inputs: &[(String, String)]) -> Result<(Value, Decided), String> {
        merge(inputs, false)
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
        assert!(merge_all(&[("x.json".into(), "{".into())])
            .is_err_and(|e| e.starts_with("x.json:1:") && e.contains("not a JSON report")));
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
