//! Merging the shards of each command: the sums, the concatenations, and the
//! renumbering that give the unsharded run's report.

use super::*;

/// Per size class, merged over the shards: `same` fields from any shard (the
/// largest), `add` fields summed; sorted by size.
pub(super) fn merge_classes(lists: &[&[Value]], same: &[&str], add: &[&str]) -> Vec<Value> {
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

pub(super) fn merge_refine(docs: &[&Value]) -> Value {
    let gens: Vec<&Value> = docs.iter().map(|d| &d["generated"]).collect();
    let mut g = gens[0].as_object().cloned().unwrap_or_default();
    g.insert("partition".into(), json!({"index": 1, "count": 1}));
    for k in [
        "checked",
        "ok",
        "failed",
        "vacuous",
        "spec_vacuous",
        "vacuity_unknown",
        "screened",
        "screened_all",
        "bounded",
        "errors",
        "inconclusive",
    ] {
        g.insert(k.into(), sum_u(&gens, k));
    }
    for k in ["generated", "distinct"] {
        g.insert(k.into(), Value::from(gens.iter().map(|x| u(x, k)).max().unwrap_or(0)));
    }
    let first_error = gens
        .iter()
        .filter(|x| !x["first_error_index"].is_null())
        .min_by_key(|x| u(x, "first_error_index"))
        .map(|x| (x["first_error"].clone(), x["first_error_index"].clone(), b(x, "first_error_inconclusive")));
    let (fe, fi, fk) = first_error.unwrap_or((Value::Null, Value::Null, false));
    g.insert("first_error".into(), fe);
    g.insert("first_error_index".into(), fi);
    g.insert("first_error_inconclusive".into(), Value::from(fk));
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
pub(super) fn renumber(o: &Value, imp: &str, number: usize) -> Value {
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
pub(super) fn merge_obligations(docs: &[&Value]) -> Result<Value, String> {
    for (i, d) in docs.iter().enumerate().skip(1) {
        for k in ["map", "inferred", "methods", "abstract_programs"] {
            // a shard whose time limit passed while it generated knows no count
            let cut = |x: &Value| x["generation_cut"].as_bool() == Some(true);
            if k == "abstract_programs" && (cut(d) || cut(docs[0])) {
                continue;
            }
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
    let total = docs.iter().map(|d| u(d, "abstract_programs")).max().unwrap_or(0);
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
    // the Z3 engine's queries, and those the relation analysis decided: per shard
    for key in [
        "z3_queries",
        "z3_static",
        "z3_trees",
        "z3_refined",
        "z3_whole_queries",
        "z3_whole_models",
        "z3_whole_fallbacks",
        "z3_whole_differing",
    ] {
        m.insert(key.into(), Value::from(docs.iter().map(|d| u(d, key)).sum::<u64>()));
    }
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

pub(super) fn merge_generate(docs: &[&Value]) -> Value {
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

pub(super) fn merge_explore_search(docs: &[&Value]) -> Value {
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
pub(super) fn merge_cells(shards: &[(u64, &Value)], n: u64, all: bool) -> Result<Value, String> {
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
