//! Model comparison on a corpus (`mowgli explore --base A --variant B PATH...`):
//! run every litmus test under two models and list the tests whose outcome sets
//! differ, with the outcomes only one side allows.
//!
//! A model is either a stamp-order file (its tables replace the default ones, as
//! with `--stamp-order`) or a library: `--base rdmatso --variant rdmatso_nopcie`
//! runs the tests that use `rdmatso` as written and with `rdmatso` renamed to
//! `rdmatso_nopcie` (in the `libraries` line and in qualified calls, on the parsed
//! test: [`translate_program`]). A library file
//! (`NAME.lib`, docs/spec-language.md) is the library of its name: `--base sv
//! --variant sv_variant.lib` renames `sv` to the file's library.

use mowgli_libs::catalogue::Catalogue;
use std::collections::BTreeSet;
use std::path::PathBuf;

use mowgli_core::StampOrder;
use mowgli_libs::catalogue::spec_factory;
use serde::Serialize;

use crate::analyses::litmus;
use crate::lang::ast::Stmt;
use crate::lang::syntax::{self, Litmus};
use crate::lang::{edit, print, InputError};
use mowgli_diag::Diagnostic;

/// One side of a comparison.
#[derive(Clone, Debug)]
pub enum Model {
    /// A stamp order (the default tables with the file's tables in place).
    Order { label: String, order: StampOrder },
    /// A library name of the litmus format.
    Library(String),
}

impl Model {
    /// `arg` names a library of `cat`, a library file (added to `cat`), or a
    /// stamp-order file.
    pub fn parse(arg: &str, default: &StampOrder, cat: &mut Catalogue) -> Result<Model, String> {
        if cat.knows(arg) {
            return Ok(Model::Library(arg.to_string()));
        }
        if arg.ends_with(".lib") {
            return Model::library_file(arg, None, cat);
        }
        let text = std::fs::read_to_string(arg).map_err(|e| {
            let d = Diagnostic::whole_file(
                arg,
                format!("neither a library ({}) nor a readable stamp-order file: {e}", cat.known().join(", ")),
            );
            let known = cat.known();
            d.suggesting(arg, known.iter().map(String::as_str)).to_string()
        })?;
        let order = crate::lang::stamporder::load_text(arg, &text, default).map_err(|e| e.to_string())?;
        Ok(Model::Order { label: arg.to_string(), order })
    }

    /// A library file (docs/spec-language.md), added to `cat` under its name, or
    /// under `NAME_variant` when its name is `taken` (the other side's).
    fn library_file(arg: &str, taken: Option<&str>, cat: &mut Catalogue) -> Result<Model, String> {
        let spec = mowgli_spec::parse_file(std::path::Path::new(arg)).map_err(|d| d.to_string())?;
        let name = match taken {
            Some(t) if t == spec.name => format!("{}_variant", spec.name),
            _ => spec.name.clone(),
        };
        cat.add(&name, spec_factory(&spec));
        Ok(Model::Library(name))
    }

    /// The two sides of a comparison: a variant library file of the base's name
    /// (`--base sv --variant sv.lib`) is known as `NAME_variant`, so that the base
    /// keeps its library. Library files are added to `cat`.
    pub fn pair(
        base: &str,
        variant: &str,
        default: &StampOrder,
        cat: &mut Catalogue,
    ) -> (Result<Model, String>, Result<Model, String>) {
        let b = Model::parse(base, default, cat);
        let v = match (&b, variant.ends_with(".lib")) {
            (Ok(Model::Library(name)), true) => Model::library_file(variant, Some(name), cat),
            _ => Model::parse(variant, default, cat),
        };
        (b, v)
    }

    pub fn label(&self) -> &str {
        match self {
            Model::Order { label, .. } => label,
            Model::Library(l) => l,
        }
    }
}

/// A test whose outcome sets differ.
#[derive(Clone, Debug, Serialize)]
pub struct Difference {
    pub file: String,
    pub name: String,
    /// Outcomes (as `name=value` lists) only the base allows, and only the variant.
    pub only_base: Vec<String>,
    pub only_variant: Vec<String>,
    pub base_outcomes: usize,
    pub variant_outcomes: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub base: String,
    pub variant: String,
    pub tests: usize,
    /// Tests that do not use the base library (library comparisons).
    pub skipped: usize,
    pub same: usize,
    pub differences: Vec<Difference>,
    /// Files that could not be read or run (in JSON: `file`, `line`, `column`, `message`, …).
    pub errors: Vec<InputError>,
    pub millis: f64,
}

/// `t` over library `to` instead of `from`: the library renamed
/// ([`edit::rename_library`]) and each call statement of a method of `from` that `to`
/// lacks replaced by the calls its declaration says it is tantamount to
/// ([`mowgli_core::MethodSig::same_as`]; coreRMA's `Flush(n)` is `Rfence(n); Mfence()`
/// over RDMA^TSO, RDMA paper §6), when `to` has them. Methods of the same name keep
/// their calls.
pub fn translate_program(t: &mut Litmus, from: &str, to: &str, order: &StampOrder, cat: &Catalogue) {
    edit::rename_library(t, from, to);
    let (Ok(fl), Ok(tl)) = (cat.library(from, order), cat.library(to, order)) else { return };
    let has = |name: &str| tl.methods().iter().any(|m| m.name == name);
    let expansions: Vec<(&str, &[(&str, bool)])> = fl
        .methods()
        .iter()
        .filter(|m| !m.same_as.is_empty() && !has(m.name) && m.same_as.iter().all(|(n, _)| has(n)))
        .map(|m| (m.name, m.same_as.as_slice()))
        .collect();
    if expansions.is_empty() {
        return;
    }
    let expand = |s: &Stmt| {
        // a call statement of the test's library (unqualified, or qualified by it)
        let Stmt::Call(c) = s else { return None };
        if c.lib.as_ref().is_some_and(|l| l.text != to) {
            return None;
        }
        let (_, calls) = expansions.iter().find(|(n, _)| *n == c.method.text)?;
        let lib = c.lib.as_ref().map(|l| l.text.as_str());
        let args = |takes: bool| if takes { c.args.clone() } else { vec![] };
        Some(calls.iter().map(|(m, takes)| edit::call_stmt(lib, m, args(*takes))).collect())
    };
    for (_, body) in &mut t.bodies {
        *body = edit::expand_stmts(std::mem::take(body), &mut |s| expand(s));
    }
}

fn outcome_set(r: &litmus::TestReport) -> BTreeSet<String> {
    r.outcomes.iter().map(|o| o.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")).collect()
}

/// Runs every test of `paths` under both models.
pub fn compare(
    paths: &[PathBuf],
    base: &Model,
    variant: &Model,
    default: &StampOrder,
    cat: &Catalogue,
) -> Result<Comparison, InputError> {
    let start = std::time::Instant::now();
    let files = litmus::collect(paths)?;
    let mut cmp = Comparison {
        base: base.label().to_string(),
        variant: variant.label().to_string(),
        tests: 0,
        skipped: 0,
        same: 0,
        differences: Vec::new(),
        errors: Vec::new(),
        millis: 0.0,
    };
    for f in &files {
        let file = f.display().to_string();
        let text = match mowgli_diag::read_source(f, &file) {
            Ok(t) => t,
            Err(d) => {
                cmp.errors.push(d);
                continue;
            }
        };
        let ast = match syntax::parse(&text) {
            Ok(t) => t,
            Err(e) => {
                cmp.errors.push(e.in_file(&file, &text));
                continue;
            }
        };
        let (bo, vt, vo) = match (base, variant) {
            (Model::Order { order: a, .. }, Model::Order { order: b, .. }) => (a, ast.clone(), b),
            (Model::Library(a), Model::Library(b)) => {
                // tests that list the base library only (a test in herd7's format lists
                // none: it runs over its implicit library as written)
                if ast.herd.is_some() || !edit::uses_library(&ast, a) {
                    cmp.skipped += 1;
                    continue;
                }
                let mut vt = ast.clone();
                translate_program(&mut vt, a, b, default, cat);
                (default, vt, default)
            }
            _ => {
                return Err(InputError::whole_file(
                    String::new(),
                    "--base and --variant must both be libraries or both stamp-order files",
                ))
            }
        };
        // the variant's positions are the test's (an inserted call has none)
        let rb = litmus::check_parsed(&file, &text, &ast, bo, cat);
        let rv = litmus::check_parsed(&file, &text, &vt, vo, cat);
        let (rb, rv) = match (rb, rv) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                cmp.errors.push(e);
                continue;
            }
        };
        cmp.tests += 1;
        let (sb, sv) = (outcome_set(&rb), outcome_set(&rv));
        if sb == sv {
            cmp.same += 1;
        } else {
            cmp.differences.push(Difference {
                file,
                name: rb.name.clone(),
                only_base: sb.difference(&sv).cloned().collect(),
                only_variant: sv.difference(&sb).cloned().collect(),
                base_outcomes: sb.len(),
                variant_outcomes: sv.len(),
            });
        }
    }
    cmp.millis = start.elapsed().as_secs_f64() * 1000.0;
    // library models compare the base library's tests only: none among the inputs
    // means nothing was compared, an input error rather than an agreement
    if cmp.tests == 0 && cmp.errors.is_empty() {
        // shown at the first path given (a word of the command line)
        let first = paths.first().map(|p| p.display().to_string()).unwrap_or_default();
        return Err(InputError::whole_file(
            first,
            format!(
                "none of the {} tests given uses `{}`: nothing was compared (library models compare the tests \
                 of the base library only)",
                cmp.skipped, cmp.base
            ),
        ));
    }
    Ok(cmp)
}

// ---------------------------------------------------------------------------
// Distinguishing-test search (`mowgli explore --base A --variant B --search`)
// ---------------------------------------------------------------------------

/// How [`search`] generates its candidates.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// The library programs are generated over, for stamp-order models (library
    /// models use the base library).
    pub library: String,
    /// Generator bounds (see [`crate::analyses::generate::SuiteBounds::gen_bounds`]).
    pub bounds: crate::analyses::refine::gen::Bounds,
    /// Stop after this many distinguishing programs (in generation order).
    pub max: Option<usize>,
    /// Worker threads.
    pub jobs: usize,
    /// Only the programs whose index (smallest first, across the size classes) is
    /// K−1 modulo N (`--partition K/N`).
    pub partition: crate::analyses::refine::gen::Partition,
}

/// A generated program whose outcome sets differ under the two models.
#[derive(Clone, Debug, Serialize)]
pub struct Distinguishing {
    pub name: String,
    /// Its index among the generated programs (smallest first).
    pub index: usize,
    /// Instructions in all.
    pub size: usize,
    /// Outcomes (`k=v` lists) only the base allows, and only the variant.
    pub only_base: Vec<String>,
    pub only_variant: Vec<String>,
    pub base_outcomes: usize,
    pub variant_outcomes: usize,
    /// The program as a litmus test for the base, with the base's outcomes as
    /// expectations (for `mowgli litmus`, with `--stamp-order` for a stamp-order model).
    pub base_text: String,
    /// The same for the variant.
    pub variant_text: String,
}

/// Per size class searched.
#[derive(Clone, Debug, Serialize)]
pub struct SearchClass {
    pub size: usize,
    pub generated: u64,
    pub distinct: usize,
    pub checked: usize,
    pub distinguishing: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct SearchReport {
    pub base: String,
    pub variant: String,
    pub library: String,
    pub classes: Vec<SearchClass>,
    /// Programs run under both models.
    pub checked: usize,
    /// The distinguishing programs of the smallest size class that has any (at most `max`).
    pub found: Vec<Distinguishing>,
    /// Every size class up to the bounds was searched (nothing found).
    pub exhausted: bool,
    pub errors: Vec<String>,
    /// The index of the program of each of `errors` (to merge partitions).
    pub error_indices: Vec<usize>,
    pub millis: f64,
}

/// The litmus file of a distinguishing program for one side: the program, every
/// outcome of that side as an expectation, and the outcomes only the other side
/// allows as explicit `expect forbidden` lines.
fn side_text(
    program: &str,
    this: &str,
    other: &str,
    run_with: &str,
    outcomes: &[std::collections::BTreeMap<String, String>],
    only_other: &[std::collections::BTreeMap<String, String>],
    only_this: &[std::collections::BTreeMap<String, String>],
) -> String {
    let mut s = format!(
        "# Found by `mowgli explore --search`: {this} and {other} give this program different outcome sets.\n# Expectations under {this}{run_with}.\n"
    );
    for o in only_this {
        s += &format!("# only {this} allows: {}\n", crate::analyses::generate::outcome_text(o));
    }
    s += program;
    for o in only_other {
        s += &format!("# allowed by {other} only\nexpect forbidden {}\n", crate::analyses::generate::conjunction(o));
    }
    s += &crate::analyses::generate::expectation_lines(outcomes);
    s
}

/// Searches generated programs, smallest first, for ones whose outcome sets
/// (every register and the final value of every declared location) differ under
/// `base` and `variant`, and stops at the first size class that has any (or after
/// `opts.max`). Library models run each program over the base library as generated
/// and with the base library renamed to the variant; stamp-order models run the
/// same program (over `opts.library`) under either order.
pub fn search(
    base: &Model,
    variant: &Model,
    default: &StampOrder,
    opts: &SearchOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
    cat: &Catalogue,
) -> Result<SearchReport, String> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Mutex;
    let start = std::time::Instant::now();
    let (lib, bo, vo) = match (base, variant) {
        (Model::Order { order: a, .. }, Model::Order { order: b, .. }) => (opts.library.clone(), a, b),
        (Model::Library(a), Model::Library(_)) => (a.clone(), default, default),
        _ => return Err("--base and --variant must both be libraries or both stamp-order files".into()),
    };
    let g = crate::analyses::refine::gen::Generator::in_catalogue(&lib, bo, cat, &opts.bounds)?;
    let variant_program = |t: &Litmus| {
        let mut t = t.clone();
        if let (Model::Library(a), Model::Library(b)) = (base, variant) {
            translate_program(&mut t, a, b, default, cat);
        }
        t
    };
    let run_with = |m: &Model| match m {
        Model::Order { label, .. } => format!(" (run: mowgli litmus --stamp-order {label} FILE)"),
        Model::Library(_) => String::new(),
    };
    let mut rep = SearchReport {
        base: base.label().to_string(),
        variant: variant.label().to_string(),
        library: lib.clone(),
        classes: Vec::new(),
        checked: 0,
        found: Vec::new(),
        exhausted: false,
        errors: Vec::new(),
        error_indices: Vec::new(),
        millis: 0.0,
    };
    let max = opts.max.unwrap_or(usize::MAX);
    let mut index = 0;
    for size in 1..=g.max_size() {
        let class = g.class_par(size, opts.jobs);
        progress(size, class.distinct());
        let next = AtomicUsize::new(0);
        let found_count = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        type Found = (usize, Result<Option<Distinguishing>, String>);
        let results: Mutex<Vec<Found>> = Mutex::new(Vec::new());
        let mine: Vec<usize> = (0..class.distinct()).filter(|i| opts.partition.contains(index + i)).collect();
        std::thread::scope(|sc| {
            for _ in 0..opts.jobs.max(1).min(mine.len().max(1)) {
                sc.spawn(|| loop {
                    let p = next.fetch_add(1, Ordering::SeqCst);
                    if p >= mine.len() || stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let i = mine[p];
                    let name = format!("search-{lib}-{}", index + i);
                    let description = format!("distinguishes {} from {}", base.label(), variant.label());
                    let bt = g.litmus_with(&class, i, &name, &description);
                    let vt = variant_program(&bt);
                    // texts only for the report (the programs are run as generated)
                    let (program, vprogram) = (print::print(&bt), print::print(&vt));
                    let r = litmus::outcomes_of(&bt, &program, bo, cat, true)
                        .and_then(|ob| Ok((ob, litmus::outcomes_of(&vt, &vprogram, vo, cat, true)?)))
                        .map_err(|e| format!("{name}: {}", e.msg))
                        .map(|(ob, ov)| {
                            if ob == ov {
                                return None;
                            }
                            let only_b: Vec<_> = ob.iter().filter(|o| !ov.contains(o)).cloned().collect();
                            let only_v: Vec<_> = ov.iter().filter(|o| !ob.contains(o)).cloned().collect();
                            if found_count.fetch_add(1, Ordering::SeqCst) + 1 >= max {
                                stop.store(true, Ordering::SeqCst);
                            }
                            Some(Distinguishing {
                                name: name.clone(),
                                index: index + i,
                                size,
                                only_base: only_b.iter().map(crate::analyses::generate::outcome_text).collect(),
                                only_variant: only_v.iter().map(crate::analyses::generate::outcome_text).collect(),
                                base_outcomes: ob.len(),
                                variant_outcomes: ov.len(),
                                base_text: side_text(
                                    &program,
                                    base.label(),
                                    variant.label(),
                                    &run_with(base),
                                    &ob,
                                    &only_v,
                                    &only_b,
                                ),
                                variant_text: side_text(
                                    &vprogram,
                                    variant.label(),
                                    base.label(),
                                    &run_with(variant),
                                    &ov,
                                    &only_b,
                                    &only_v,
                                ),
                            })
                        });
                    results.lock().expect("results").push((i, r));
                });
            }
        });
        let mut results = results.into_inner().expect("results");
        results.sort_by_key(|r| r.0);
        let mut stat = SearchClass {
            size,
            generated: class.generated,
            distinct: class.distinct(),
            checked: results.len(),
            distinguishing: 0,
        };
        for (i, r) in results {
            match r {
                Ok(Some(d)) if rep.found.len() < max => {
                    stat.distinguishing += 1;
                    rep.found.push(d);
                }
                Ok(_) => {}
                Err(e) => {
                    rep.errors.push(e);
                    rep.error_indices.push(index + i);
                }
            }
        }
        rep.checked += stat.checked;
        rep.classes.push(stat);
        index += class.distinct();
        if !rep.found.is_empty() {
            break;
        }
        if size == g.max_size() {
            rep.exhausted = true;
        }
    }
    rep.millis = start.elapsed().as_secs_f64() * 1000.0;
    Ok(rep)
}

/// Writes each distinguishing program as two files, `DIR/NAME-BASE.litmus` and
/// `DIR/NAME-VARIANT.litmus` (with `base`/`variant` for stamp-order models, whose
/// labels are paths), and returns their paths.
pub fn write_found(dir: &std::path::Path, rep: &SearchReport, libraries: bool) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
    let (b, v) = if libraries { (rep.base.as_str(), rep.variant.as_str()) } else { ("base", "variant") };
    let mut out = Vec::new();
    for d in &rep.found {
        for (side, text) in [(b, &d.base_text), (v, &d.variant_text)] {
            let path = dir.join(format!("{}-{side}.litmus", d.name));
            std::fs::write(&path, text).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
            out.push(path);
        }
    }
    Ok(out)
}
