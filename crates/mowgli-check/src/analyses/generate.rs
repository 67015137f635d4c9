//! Bounded-exhaustive litmus generation (`mowgli generate`): every litmus program
//! over a library up to bounds on threads, nodes, instructions per thread,
//! locations and values, one per renaming class, each written with every outcome
//! the engine computes for it as an expectation.
//!
//! The programs come from the client generator of [`crate::analyses::refine::gen`] (the same
//! grammar and symmetry reduction as generated refinement clients: a program is kept
//! once up to renaming of threads with their nodes, of nodes, locations and values),
//! with the filter of [`SuiteBounds::gen_bounds`]:
//!
//! - at least `min_threads` threads (2 by default, as in herd7/diy suites: a
//!   one-thread program only races with its own NIC operations);
//! - the threads interact: with two threads or more, linking two threads when they
//!   name a common location links them all (no thread is an independent program of
//!   its own); a one-thread program names a location;
//! - every thread has at least one instruction; no put or get copies a location
//!   onto itself; work identifiers are `_` unless a later `Wait` uses them.
//!
//! A program with such a location is always observable: the outcome of a test is
//! the values of its registers and the final value of every location it declares.
//!
//! Each program is rendered as a `.litmus` file whose expectations are its whole
//! outcome set under the model in force: one `expect allowed` per outcome and one
//! `expect forbidden` of every other outcome, so that `mowgli litmus DIR` re-checks
//! the exact set (and a change of model shows up as failures).

use mowgli_libs::catalogue::Catalogue;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use mowgli_core::StampOrder;
use serde::Serialize;

use crate::analyses::litmus;
use crate::analyses::refine::gen::{client_name, Bounds, Generator, Partition};

/// Bounds of a generated suite.
#[derive(Clone, Debug, Serialize)]
pub struct SuiteBounds {
    /// Threads (at most).
    pub threads: usize,
    /// Nodes (at most).
    pub nodes: usize,
    /// Instructions per thread (at most; at least one).
    pub instrs: usize,
    /// Locations (at most).
    pub locs: usize,
    /// Values `1..=values` (0 is the initial value of every location).
    pub values: usize,
    /// Threads (at least).
    pub min_threads: usize,
}

impl SuiteBounds {
    /// The generator bounds for library `lib`: these bounds, one work identifier per
    /// thread, no observer library, every method of the library's core interface
    /// (not those its declaration marks as extensions), and the filter of the
    /// module documentation.
    pub fn gen_bounds(&self, lib: &str, cat: &Catalogue) -> Bounds {
        let mut b = Bounds::in_catalogue(lib, cat, self.threads, self.nodes, self.instrs);
        b.locs = self.locs;
        b.values = self.values;
        b.observer = None;
        b.need_register = false;
        b.min_threads = self.min_threads;
        b.connected = true;
        b.extensions = false;
        // values 1..=V only, as the suites' documented grammar has it
        b.compare_initial = false;
        b.remote_only = true;
        b.bind_ids = false;
        b
    }
}

/// How a suite is generated.
#[derive(Clone, Debug)]
pub struct SuiteOptions {
    pub libs: Vec<String>,
    pub bounds: SuiteBounds,
    /// Stop after this many tests (smallest first).
    pub max_tests: Option<usize>,
    /// Worker threads.
    pub jobs: usize,
    /// Names the model in the files' header comment (e.g. the stamp-order file).
    pub model: String,
    /// Only the programs whose index in the suite (counted across the libraries, in
    /// order) is K−1 modulo N (`--partition K/N`).
    pub partition: Partition,
}

/// One generated test.
#[derive(Clone, Debug, Serialize)]
pub struct SuiteTest {
    pub name: String,
    pub library: String,
    /// Position among the library's programs (smallest first).
    pub index: usize,
    /// Instructions in all.
    pub size: usize,
    /// Outcomes computed.
    pub outcomes: usize,
    /// The `.litmus` text, with expectations.
    pub text: String,
}

/// Per size class of a library.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ClassReport {
    pub size: usize,
    /// Labelled programs generated (before canonicalisation).
    pub generated: u64,
    /// Programs after canonicalisation.
    pub distinct: usize,
    /// Tests written (fewer than `distinct` when `--max-tests` stopped the run, or
    /// when a program has no execution).
    pub tests: usize,
    pub outcomes: usize,
    /// Programs without any execution (not written).
    pub no_execution: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct LibraryReport {
    pub library: String,
    pub generated: u64,
    pub distinct: usize,
    pub tests: usize,
    pub outcomes: usize,
    pub classes: Vec<ClassReport>,
}

/// The report of a generated suite.
#[derive(Clone, Debug, Serialize)]
pub struct SuiteReport {
    pub bounds: SuiteBounds,
    pub model: String,
    pub jobs: usize,
    /// Labelled programs generated, before canonicalisation.
    pub generated: u64,
    /// Programs after canonicalisation (of the size classes generated).
    pub distinct: usize,
    /// `generated / distinct`.
    pub dedup_factor: f64,
    /// Tests with their outcomes.
    pub tests: usize,
    /// Outcomes in all.
    pub outcomes: usize,
    /// The most outcomes of one test.
    pub max_outcomes: usize,
    /// Programs without any execution (not written as tests).
    pub no_execution: usize,
    pub libraries: Vec<LibraryReport>,
    /// Programs whose outcomes could not be computed (first messages).
    pub errors: Vec<String>,
    /// The index in the suite of the program of each of `errors` (to merge partitions).
    pub error_indices: Vec<usize>,
    pub error_count: usize,
    /// Every program up to the bounds was generated and has its outcomes (false
    /// when `max_tests` stopped the run).
    pub complete: bool,
    /// Time generating and canonicalising, computing outcomes, in all (ms).
    pub generate_millis: f64,
    pub outcome_millis: f64,
    pub millis: f64,
    /// Tests (with their outcomes) per second of the whole run.
    pub tests_per_second: f64,
}

/// Progress of a run, for a progress bar.
pub enum SuiteProgress<'a> {
    /// A size class was generated; this many of its programs get outcomes.
    Class { library: &'a str, size: usize, distinct: usize, to_run: usize },
    /// The outcomes of a program were computed.
    Done,
}

/// One expectation atom, `key = value`, or `None` for a value the condition
/// language cannot write.
fn atom(k: &str, v: &str) -> Option<String> {
    (!v.contains('?') && !v.contains("one of")).then(|| format!("{k} = {v}"))
}

/// An outcome as a condition: the conjunction of its atoms (`true` when it has none).
pub fn conjunction(o: &BTreeMap<String, String>) -> String {
    let atoms: Vec<String> = o.iter().filter_map(|(k, v)| atom(k, v)).collect();
    if atoms.is_empty() {
        "true".into()
    } else {
        atoms.join(" /\\ ")
    }
}

/// An outcome as text, `k=v k=v` (the form [`crate::analyses::explore`] lists).
pub fn outcome_text(o: &BTreeMap<String, String>) -> String {
    o.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
}

/// The expectation lines pinning the outcome set `outcomes` (all registers and
/// final values of every declared location): one `expect allowed` per outcome,
/// then one `expect forbidden` of every other outcome.
pub fn expectation_lines(outcomes: &[BTreeMap<String, String>]) -> String {
    let mut s = String::new();
    for o in outcomes {
        s += &format!("expect allowed {}\n", conjunction(o));
    }
    if !outcomes.is_empty() {
        let all: Vec<String> = outcomes.iter().map(|o| format!("({})", conjunction(o))).collect();
        s += &format!("expect forbidden ~({})\n", all.join(" \\/ "));
    }
    s
}

/// The text of a generated test: `program` (as the generator renders it) with a
/// header comment and its expectations.
fn test_text(program: &str, lib: &str, model: &str, outcomes: &[BTreeMap<String, String>]) -> String {
    format!(
        "# Generated by `mowgli generate` over {lib}; expectations: the {} outcome{} under {model}, and no other.\n{program}{}",
        outcomes.len(),
        if outcomes.len() == 1 { "" } else { "s" },
        expectation_lines(outcomes)
    )
}

/// [`generate_suite_with`], keeping the tests.
pub fn generate_suite(
    opts: &SuiteOptions,
    order: &StampOrder,
    cat: &Catalogue,
    progress: &(dyn Fn(SuiteProgress) + Sync),
) -> Result<(SuiteReport, Vec<SuiteTest>), String> {
    let tests = Mutex::new(Vec::new());
    let rep = generate_suite_with(opts, order, cat, progress, &|t| {
        tests.lock().expect("tests").push(t);
        Ok(())
    })?;
    let mut tests = tests.into_inner().expect("tests");
    tests.sort_by(|a: &SuiteTest, b: &SuiteTest| {
        let lib = |t: &SuiteTest| opts.libs.iter().position(|l| *l == t.library);
        (lib(a), a.index).cmp(&(lib(b), b.index))
    });
    Ok((rep, tests))
}

/// Generates the suite of `opts` under `order`, smallest programs first, library by
/// library, computes the outcomes of every program on `opts.jobs` threads, and
/// hands each test to `sink` from the thread that computed it (in no particular
/// order; a size class is done before the next starts).
pub fn generate_suite_with(
    opts: &SuiteOptions,
    order: &StampOrder,
    cat: &Catalogue,
    progress: &(dyn Fn(SuiteProgress) + Sync),
    sink: &(dyn Fn(SuiteTest) -> Result<(), String> + Sync),
) -> Result<SuiteReport, String> {
    let start = Instant::now();
    let b = &opts.bounds;
    if b.min_threads > b.threads {
        return Err(format!("at least {} threads asked, but at most {}", b.min_threads, b.threads));
    }
    let mut gens = Vec::new();
    for lib in &opts.libs {
        if cat.library(lib, order).is_err() {
            // shown in the command line that named it (`--libs`), with the closest library
            let args: Vec<String> = std::env::args().collect();
            let known = cat.known();
            let msg = format!(
                "unknown library `{lib}` (known: {}; a library file is given with `--lib FILE`)",
                known.join(", ")
            );
            let d = mowgli_diag::Diagnostic::command_line(&args, "--libs", lib, msg).with_label("unknown");
            return Err(d.suggesting(lib, known.iter().map(String::as_str)).to_string());
        }
        gens.push(Generator::in_catalogue(lib, order, cat, &b.gen_bounds(lib, cat))?);
    }
    let jobs = opts.jobs.max(1);
    let mut rep = SuiteReport {
        bounds: b.clone(),
        model: opts.model.clone(),
        jobs,
        generated: 0,
        distinct: 0,
        dedup_factor: 0.0,
        tests: 0,
        outcomes: 0,
        max_outcomes: 0,
        no_execution: 0,
        libraries: Vec::new(),
        errors: Vec::new(),
        error_indices: Vec::new(),
        error_count: 0,
        complete: true,
        generate_millis: 0.0,
        outcome_millis: 0.0,
        millis: 0.0,
        tests_per_second: 0.0,
    };
    // the index in the whole suite of the first program of the current class
    let mut suite_base = 0;
    'libs: for g in &gens {
        let lib = g.library().to_string();
        let mut lrep = LibraryReport {
            library: lib.clone(),
            generated: 0,
            distinct: 0,
            tests: 0,
            outcomes: 0,
            classes: Vec::new(),
        };
        let mut index = 0;
        for size in 1..=g.max_size() {
            let t0 = Instant::now();
            let class = g.class_par(size, jobs);
            rep.generate_millis += t0.elapsed().as_secs_f64() * 1000.0;
            let left = opts.max_tests.map_or(usize::MAX, |m| m.saturating_sub(rep.tests));
            let to_run = class.distinct().min(left);
            let mine: Vec<usize> = (0..to_run).filter(|i| opts.partition.contains(suite_base + i)).collect();
            progress(SuiteProgress::Class { library: &lib, size, distinct: class.distinct(), to_run: mine.len() });
            let t1 = Instant::now();
            let next = AtomicUsize::new(0);
            // Ok(None): the program has no execution
            type Done = (usize, Result<Option<usize>, String>);
            let done: Mutex<Vec<Done>> = Mutex::new(Vec::new());
            std::thread::scope(|sc| {
                for _ in 0..jobs.min(mine.len().max(1)) {
                    sc.spawn(|| loop {
                        let p = next.fetch_add(1, Ordering::Relaxed);
                        if p >= mine.len() {
                            break;
                        }
                        let i = mine[p];
                        let name = client_name(&lib, index + i);
                        let description = format!(
                            "generated over {lib}: {size} instruction{} (bounds {} threads, {} nodes, {} instructions per thread, {} locations, {} values)",
                            if size == 1 { "" } else { "s" },
                            b.threads,
                            b.nodes,
                            b.instrs,
                            b.locs,
                            b.values
                        );
                        let ast = g.litmus_with(&class, i, &name, &description);
                        // the text is the file written; the program runs as generated
                        let program = crate::lang::print::print(&ast);
                        let r = litmus::outcomes_of(&ast, &program, order, cat, true)
                            .map_err(|e| format!("{name}: {}", e.msg))
                            .and_then(|outs| {
                                if outs.is_empty() {
                                    return Ok(None);
                                }
                                sink(SuiteTest {
                                    name: name.clone(),
                                    library: lib.clone(),
                                    index: index + i,
                                    size,
                                    outcomes: outs.len(),
                                    text: test_text(&program, &lib, &opts.model, &outs),
                                })?;
                                Ok(Some(outs.len()))
                            });
                        progress(SuiteProgress::Done);
                        done.lock().expect("results").push((i, r));
                    });
                }
            });
            rep.outcome_millis += t1.elapsed().as_secs_f64() * 1000.0;
            let mut done = done.into_inner().expect("results");
            done.sort_by_key(|d| d.0);
            let mut crep =
                ClassReport { size, generated: class.generated, distinct: class.distinct(), ..Default::default() };
            for (i, r) in done {
                match r {
                    Ok(None) => {
                        crep.no_execution += 1;
                        rep.no_execution += 1;
                    }
                    Ok(Some(n)) => {
                        crep.tests += 1;
                        crep.outcomes += n;
                        rep.max_outcomes = rep.max_outcomes.max(n);
                    }
                    Err(e) => {
                        rep.error_count += 1;
                        if rep.errors.len() < 10 {
                            rep.errors.push(e);
                            rep.error_indices.push(suite_base + i);
                        }
                    }
                }
            }
            index += class.distinct();
            suite_base += class.distinct();
            lrep.generated += crep.generated;
            lrep.distinct += crep.distinct;
            lrep.tests += crep.tests;
            lrep.outcomes += crep.outcomes;
            rep.generated += crep.generated;
            rep.distinct += crep.distinct;
            rep.tests += crep.tests;
            rep.outcomes += crep.outcomes;
            lrep.classes.push(crep);
            if to_run < class.distinct() || opts.max_tests.is_some_and(|m| rep.tests >= m) {
                let last = size == g.max_size() && to_run == class.distinct();
                rep.complete = last && std::ptr::eq(g, gens.last().expect("a library"));
                rep.libraries.push(lrep);
                break 'libs;
            }
        }
        rep.libraries.push(lrep);
    }
    rep.millis = start.elapsed().as_secs_f64() * 1000.0;
    rep.dedup_factor = if rep.distinct > 0 { rep.generated as f64 / rep.distinct as f64 } else { 0.0 };
    rep.tests_per_second = rep.tests as f64 / (rep.millis / 1000.0).max(1e-9);
    Ok(rep)
}

/// Writes a test as `DIR/NAME.litmus` (the directory must exist).
pub fn write_test(dir: &Path, t: &SuiteTest) -> Result<(), String> {
    let path = dir.join(format!("{}.litmus", t.name));
    std::fs::write(&path, &t.text).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

/// A human summary of a run.
pub fn render_report(r: &SuiteReport) -> String {
    let b = &r.bounds;
    let mut s = format!(
        "bounds: {}..={} threads, {} nodes, {} instructions per thread, {} locations, values 1..={}; model: {}\n",
        b.min_threads, b.threads, b.nodes, b.instrs, b.locs, b.values, r.model
    );
    for l in &r.libraries {
        s += &format!("{}:\n  size  generated   distinct    tests  outcomes\n", l.library);
        for c in &l.classes {
            s += &format!("  {:4} {:10} {:10} {:8} {:9}\n", c.size, c.generated, c.distinct, c.tests, c.outcomes);
        }
    }
    for e in &r.errors {
        s += &format!("error: {e}\n");
    }
    if r.no_execution > 0 {
        s += &format!("note: {} programs have no execution and are not written\n", r.no_execution);
    }
    s += &format!(
        "summary: {} programs generated (labelled), {} distinct after canonicalisation (dedup factor {:.1}), {} tests{} with {} outcomes (at most {} per test), {} errors; generation {:.1} s, outcomes {:.1} s, total {:.1} s on {} threads ({:.0} tests/s)\n",
        r.generated,
        r.distinct,
        r.dedup_factor,
        r.tests,
        if r.complete { "" } else { " (stopped early: --max-tests)" },
        r.outcomes,
        r.max_outcomes,
        r.error_count,
        r.generate_millis / 1000.0,
        r.outcome_millis / 1000.0,
        r.millis / 1000.0,
        r.jobs,
        r.tests_per_second
    );
    s
}
