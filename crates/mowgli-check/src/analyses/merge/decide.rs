//! The verdict of each command's report, read from its JSON (the same rules as
//! the command itself).

use super::*;

/// The verdict of `mowgli refine --calls` from its report (`generated`: the
/// `GenReport`), with `write_errors` outputs that could not be written.
pub fn decide_refine(doc: &Value, write_errors: usize) -> Decided {
    let g = &doc["generated"];
    let covered = b(g, "complete") && !b(g, "timed_out") && u(g, "errors") == 0;
    // a bound without a single client verifies nothing: that is an input problem
    // (a run a limit stopped before its first size class is inconclusive instead)
    let empty = covered && u(g, "distinct") == 0 && u(g, "failed") == 0;
    let verdict = Verdict::of(write_errors > 0 || empty, u(g, "failed") > 0, covered);
    let bounds = &g["bounds"];
    let all = u(bounds, "threads") * u(bounds, "calls");
    let max = bounds["size"].as_u64().map_or(all, |s| s.min(all));
    let reached = match arr(g, "classes").last() {
        Some(c) => format!("in sizes 1..={} of 1..={max}", u(c, "size")),
        None => "before the first size class".to_string(),
    };
    let why = match verdict {
        Verdict::Error if empty => format!(
            "the bound has no client to check ({} generated, none of which {}): raise `--calls`/`--size`, or let an \
             observer library read the client's state (`--observer rdmawait` or `--observer sv`)",
            u(g, "generated"),
            if bounds["need_register"].as_bool().unwrap_or(true) {
                "reads a register (refinement compares registers)"
            } else {
                "survives the generator's filters"
            }
        ),
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
        Verdict::Inconclusive => {
            // a client a limit cut (the loop bound, a search's limit) is inconclusive;
            // the others could not be checked at all
            let cut = u(g, "inconclusive").min(u(g, "errors"));
            let failed = u(g, "errors") - cut;
            let mut parts = Vec::new();
            if cut > 0 {
                parts.push(format!("{cut} clients inconclusive, cut by a limit"));
            }
            if failed > 0 || cut == 0 {
                parts.push(format!("{failed} clients could not be checked"));
            }
            format!(
                "{} (first: {}): the bound was not covered",
                parts.join(" and "),
                g["first_error"].as_str().unwrap_or("?")
            )
        }
        _ => format!(
            "all {} clients of the bound{} checked, none reaches an outcome the specification forbids",
            u(g, "checked"),
            of_partition(doc),
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
    // a loop of the implementation cut at the unrolling bound: its longer runs were
    // not explored, so an obligation that holds on the runs found is undecided
    let bounded = b(doc, "bounded");
    let verdict = Verdict::of(false, failures > 0 || d_fails, complete && specs_complete && !bounded);
    let why = match verdict {
        Verdict::Counterexample => {
            format!("{failures} obligations refuted{}", if d_fails { ", D fails" } else { "" })
        }
        Verdict::Inconclusive if b(doc, "generation_cut") => "the time limit passed while the abstract programs \
             were generated (none checked): lower `--calls`, `--threads` or `--values`, or raise `--time-limit`"
            .to_string(),
        Verdict::Inconclusive if !complete => format!(
            "stopped after {} of {} abstract programs{}{}: the bound was not covered",
            u(doc, "clients"),
            u(doc, "abstract_programs"),
            of_partition(doc),
            if doc["run"]["time_limit"].is_null() { "" } else { " (time limit)" }
        ),
        Verdict::Inconclusive if bounded && specs_complete => format!(
            "every obligation holds on the runs found for the {} abstract programs{}, but a loop of the \
             implementation reached the unrolling bound: runs that stay in it longer were not explored (raise \
             --loop-bound)",
            u(doc, "clients"),
            of_partition(doc),
        ),
        Verdict::Inconclusive => "D (--check-specs) stopped early (time limit): the bound was not covered".to_string(),
        _ => format!(
            "every obligation holds on the {} abstract programs of the bound{}",
            u(doc, "clients"),
            of_partition(doc)
        ),
    };
    Decided::new(verdict, why)
}

/// The verdict of `mowgli generate` from its report, with `unwritten` test files
/// that could not be written. Generation refutes nothing, so it has no
/// counterexample. `--max-tests N` asks for the N smallest tests of the bounds,
/// not for the whole space: a suite that cap stopped is what was asked
/// (`verified`, the reason saying the bounds hold more). Programs whose outcomes
/// could not be computed leave the suite short of what was asked: inconclusive.
pub fn decide_generate(doc: &Value, unwritten: usize) -> Decided {
    let complete = b(doc, "complete");
    let verdict = Verdict::of(unwritten > 0, false, u(doc, "error_count") == 0);
    let reached = arr(doc, "libraries")
        .last()
        .map(|l| format!("{} up to size {}", s(l, "library"), arr(l, "classes").last().map_or(0, |c| u(c, "size"))))
        .unwrap_or_default();
    let why = match verdict {
        Verdict::Error => format!("{unwritten} test files could not be written"),
        Verdict::Inconclusive => format!(
            "the outcomes of {} programs could not be computed (first: {}): the bound was not covered",
            u(doc, "error_count"),
            arr(doc, "errors").first().and_then(Value::as_str).unwrap_or("?")
        ),
        _ if !complete => format!(
            "the {} smallest tests up to the bounds{}, as --max-tests asked ({reached}; the bounds hold more)",
            u(doc, "tests"),
            of_partition(doc)
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
