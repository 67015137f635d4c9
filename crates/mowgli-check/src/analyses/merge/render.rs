//! The merged report as text.

use super::*;

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
                out += &format!("{}: {e}\n", super::first_error_label(b(g, "first_error_inconclusive")));
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
