//! Checking the generated clients: partitions, progress, the run and its report.

use super::*;

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Partition {
    /// 1-based.
    pub index: usize,
    pub count: usize,
}

impl Partition {
    pub const ALL: Partition = Partition { index: 1, count: 1 };

    /// Parses `K/N` with `1 ≤ K ≤ N`.
    pub fn parse(s: &str) -> Result<Partition, String> {
        let bad = || format!("expected a partition `K/N` with 1 ≤ K ≤ N, got `{s}`");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Partition { index: k, count: n })
    }

    pub fn contains(&self, i: usize) -> bool {
        i % self.count == self.index - 1
    }
}

/// How a generated run goes.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub partition: Partition,
    pub first_fail: bool,
    pub loop_bound: usize,
    /// Worker threads.
    pub jobs: usize,
    /// Start no client after this long (the report is then incomplete).
    pub time_limit: Option<std::time::Duration>,
    /// Search only the plain executions that could show an outcome the
    /// specification forbids ([`crate::engines::explicit::run_outside`]); the verdicts are the
    /// same, but vacuity is then detected only on clients where nothing was screened.
    pub screen: bool,
    /// The engine that searches each client's implementation executions
    /// ([`refine_parsed_on`]).
    pub engine: crate::engines::explicit::Backend,
}

/// Per size class.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ClassStat {
    pub size: usize,
    pub generated: u64,
    pub distinct: usize,
    pub checked: usize,
    pub failed: usize,
}

/// A failing client: its index, text (with the failing outcome as a `forbidden`
/// expectation, so it can be kept as a regression test) and report.
#[derive(Clone, Debug, Serialize)]
pub struct GenFailure {
    pub index: usize,
    pub size: usize,
    pub name: String,
    pub text: String,
    pub report: ClientReport,
}

/// The result of a generated run (of one partition). `generated` and `distinct` are
/// the same in every partition; `checked`, `ok`, `failed`, … add up across them, and
/// the merged first counterexample is the failure with the smallest index.
#[derive(Clone, Debug, Serialize)]
pub struct GenReport {
    pub implementation: String,
    pub library: String,
    pub bounds: Bounds,
    /// The client space the run covers, in words ([`Generator::space`]).
    pub space: String,
    pub partition: Partition,
    pub loop_bound: usize,
    /// Labelled clients generated (before symmetry reduction).
    pub generated: u64,
    /// Clients after symmetry reduction.
    pub distinct: usize,
    /// Clients of this partition checked.
    pub checked: usize,
    pub ok: usize,
    pub failed: usize,
    /// Clients on which the implementation has no consistent execution (ok, vacuously).
    pub vacuous: usize,
    /// Clients on which the specification has no consistent execution (they fail
    /// unless the implementation has none either).
    pub spec_vacuous: usize,
    /// Clients whose vacuity search ran out of budget (see `refine::VACUITY_BUDGET`).
    pub vacuity_unknown: usize,
    /// Clients on which screening dropped plain executions that can only reach
    /// outcomes the specification allows (with `screened_all`: every one, so no
    /// witness search was needed at all).
    pub screened: usize,
    pub screened_all: usize,
    /// Clients whose verdict is bounded (a loop reached the unrolling bound).
    pub bounded: usize,
    /// Clients that could not be checked (e.g. too many values), and the first message.
    pub errors: usize,
    /// Of [`GenReport::errors`], the clients a limit of the tool cut (the time
    /// limit in a client's search among them): inconclusive, not malformed.
    pub inconclusive: usize,
    pub first_error: Option<String>,
    /// The index of the client of `first_error` (to merge partitions).
    pub first_error_index: Option<usize>,
    /// `first_error` is a limit that cut a client's check (inconclusive), not an
    /// error of the client.
    pub first_error_inconclusive: bool,
    /// Every size class up to the bound was generated and checked (false after
    /// `--first-fail` or the time limit).
    pub complete: bool,
    /// The time limit stopped the run (the last class in `classes` may be partly checked).
    pub timed_out: bool,
    pub classes: Vec<ClassStat>,
    pub failures: Vec<GenFailure>,
    pub millis: f64,
    /// The client that took longest to check, and its time (ms).
    pub slowest: Option<(String, f64)>,
}

/// Progress of a run, for a progress bar.
pub enum Progress {
    /// A part of a size class (threads, longest thread) was generated, with this many clients to check in this partition.
    Class { size: usize, distinct: usize, to_check: usize },
    /// A client was checked; `failed`: the name of a failing client (reported the
    /// moment it is found) and its size.
    Checked { failed: Option<(String, usize)> },
}

/// The litmus text of a failing client, with the outcome the specification forbids.
pub(crate) fn failing_text(text: &str, imp: &Implementation, r: &ClientReport) -> String {
    let mut s = format!(
        "# Generated by `mowgli refine`: `{}` ({}) reaches the outcome below, which the specification forbids.\n",
        imp.name, imp.file
    );
    s += text;
    if let Some(c) = &r.counterexample {
        let atoms: Vec<String> = c
            .outcome
            .iter()
            .filter(|(_, v)| !v.contains('?') && !v.contains("one of"))
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        if !atoms.is_empty() {
            s += &format!("expect forbidden {}\n", atoms.join(" /\\ "));
        }
    }
    s
}

/// A checked client: its position among the clients of the partition, the report,
/// the text (of a failing client only), the time.
type Checked = (usize, Result<ClientReport, String>, String, f64);

/// Generates the clients of the implemented library up to `bounds` and checks each
/// (of the partition) with [`refine_parsed_on`], smallest first.
pub fn run(
    imp: &Implementation,
    order: &StampOrder,
    bounds: &Bounds,
    opts: &RunOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<GenReport, String> {
    let start = Instant::now();
    let mut g = Generator::in_catalogue(&imp.implements, order, &imp.catalogue, bounds)?;
    g.deadline = opts.time_limit.map(|t| start + t);
    let mut rep = GenReport {
        implementation: imp.name.clone(),
        library: imp.implements.clone(),
        bounds: bounds.clone(),
        space: g.space(),
        partition: opts.partition,
        loop_bound: opts.loop_bound,
        generated: 0,
        distinct: 0,
        checked: 0,
        ok: 0,
        failed: 0,
        vacuous: 0,
        spec_vacuous: 0,
        vacuity_unknown: 0,
        screened: 0,
        screened_all: 0,
        bounded: 0,
        errors: 0,
        inconclusive: 0,
        first_error: None,
        first_error_index: None,
        first_error_inconclusive: false,
        complete: true,
        timed_out: false,
        classes: Vec::new(),
        failures: Vec::new(),
        millis: 0.0,
        slowest: None,
    };
    // one statistic per size class, filled part by part in the order of checking
    let mut stats: Vec<ClassStat> = (1..=g.max_size()).map(|size| ClassStat { size, ..Default::default() }).collect();
    let schedule = g.order();
    for (si, &(size, part)) in schedule.iter().enumerate() {
        if opts.time_limit.is_some_and(|t| start.elapsed() >= t) {
            rep.complete = false;
            rep.timed_out = true;
            break;
        }
        let stat = &mut stats[size - 1];
        // a part of a class (threads, longest thread), generated when its turn comes:
        // a run that stops at a counterexample never generates the rest
        let class = g.class_part(size, part, opts.jobs);
        if class.cut {
            // the time limit passed while this part was generated: none of it checked
            rep.complete = false;
            rep.timed_out = true;
            break;
        }
        let base = rep.distinct;
        let mine: Vec<usize> = (0..class.distinct()).filter(|i| opts.partition.contains(base + i)).collect();
        progress(Progress::Class { size, distinct: class.distinct(), to_check: mine.len() });
        let out = check_part(imp, order, &g, &class, base, &mine, opts, &start, progress);
        stat.generated += class.generated;
        stat.distinct += class.distinct();
        rep.generated += class.generated;
        rep.distinct += class.distinct();
        let reported = out.results.iter().filter(|r| !opts.first_fail || r.0 <= out.cut).count();
        let all_checked = reported == mine.len();
        for (p, r, text, ms) in out.results {
            if opts.first_fail && p > out.cut {
                continue; // checked after the first failure by another worker: not reported
            }
            if rep.slowest.as_ref().is_none_or(|s| ms > s.1) {
                rep.slowest = Some((client_name(&g.lib, base + mine[p]), ms));
            }
            stat.checked += 1;
            rep.checked += 1;
            match r {
                Ok(r) => {
                    rep.vacuous += usize::from(r.vacuous);
                    rep.spec_vacuous += usize::from(r.spec_vacuous);
                    rep.vacuity_unknown += usize::from(r.vacuity_unknown);
                    if r.impl_stats.screened > 0 {
                        rep.screened += 1;
                        rep.screened_all += usize::from(r.impl_stats.searches == 0);
                    }
                    rep.bounded += usize::from(r.bounded);
                    if r.verdict == ClientVerdict::Fail {
                        stat.failed += 1;
                        rep.failed += 1;
                        rep.failures.push(GenFailure {
                            index: base + mine[p],
                            size,
                            name: r.name.clone(),
                            text: failing_text(&text, imp, &r),
                            report: r,
                        });
                    } else if r.verdict == ClientVerdict::Inconclusive {
                        // a limit cut this client's check: not covered, like a client that errs
                        rep.errors += 1;
                        rep.inconclusive += 1;
                        if rep.first_error.is_none() {
                            rep.first_error = Some(format!("{}: {}", r.name, r.inconclusive.unwrap_or_default()));
                            rep.first_error_index = Some(base + mine[p]);
                            rep.first_error_inconclusive = true;
                        }
                    } else {
                        rep.ok += 1;
                    }
                }
                Err(e) => {
                    rep.errors += 1;
                    if rep.first_error.is_none() {
                        rep.first_error = Some(e);
                        rep.first_error_index = Some(base + mine[p]);
                    }
                }
            }
        }
        if out.out_of_time {
            rep.complete = false;
            rep.timed_out = true;
            break;
        }
        if opts.first_fail && rep.failed > 0 {
            rep.complete = si + 1 == schedule.len() && all_checked;
            break;
        }
    }
    // a stopped run lists the classes it reached; a complete one every class
    rep.classes = stats.into_iter().filter(|c| rep.complete || c.distinct > 0).collect();
    rep.millis = start.elapsed().as_secs_f64() * 1000.0;
    Ok(rep)
}

/// What the workers of one part of a class found.
struct PartOutcome {
    /// By position in `mine`, sorted.
    results: Vec<Checked>,
    /// The smallest failing position (`usize::MAX`: none), with `--first-fail`.
    cut: usize,
    /// The time limit stopped the part before every client was started.
    out_of_time: bool,
}

/// Checks the clients `mine` of `class` (its indices start at `base`) on
/// `opts.jobs` workers, smallest first; with `--first-fail`, no client after the
/// first failing one is started.
#[allow(clippy::too_many_arguments)]
fn check_part(
    imp: &Implementation,
    order: &StampOrder,
    g: &Generator,
    class: &SizeClass,
    base: usize,
    mine: &[usize],
    opts: &RunOptions,
    start: &Instant,
    progress: &(dyn Fn(Progress) + Sync),
) -> PartOutcome {
    let next = AtomicUsize::new(0);
    let out_of_time = AtomicBool::new(false);
    let stop = AtomicBool::new(false);
    // the smallest failing position (in `mine`): positions after it are not started
    let min_fail = AtomicUsize::new(usize::MAX);
    let results: Mutex<Vec<Checked>> = Mutex::new(Vec::new());
    let jobs = opts.jobs.max(1).min(mine.len().max(1));
    std::thread::scope(|sc| {
        for _ in 0..jobs {
            sc.spawn(|| loop {
                let p = next.fetch_add(1, Ordering::SeqCst);
                if p >= mine.len() || (stop.load(Ordering::SeqCst) && p > min_fail.load(Ordering::SeqCst)) {
                    break;
                }
                if opts.time_limit.is_some_and(|t| start.elapsed() >= t) {
                    out_of_time.store(true, Ordering::SeqCst);
                    break;
                }
                let i = mine[p];
                let name = client_name(&g.lib, base + i);
                // checked as built; its text is printed only to report it
                let lit = g.litmus(class, i, &name);
                let text = || crate::lang::print::print(&lit);
                let t0 = std::time::Instant::now();
                let how = ClientCheck {
                    loop_bound: opts.loop_bound,
                    screen: opts.screen,
                    engine: opts.engine,
                    deadline: opts.time_limit.map(|t| *start + t),
                };
                let r = refine_parsed_on(imp, order, &name, &lit, &text, &how).map_err(|e| e.to_string());
                let ms = t0.elapsed().as_secs_f64() * 1000.0;
                let failed = matches!(&r, Ok(r) if r.verdict == ClientVerdict::Fail);
                let text = if failed { text() } else { String::new() };
                if failed && opts.first_fail {
                    min_fail.fetch_min(p, Ordering::SeqCst);
                    stop.store(true, Ordering::SeqCst);
                }
                progress(Progress::Checked { failed: failed.then(|| (name.clone(), class.size)) });
                results.lock().expect("results").push((p, r, text, ms));
            });
        }
    });
    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|r| r.0);
    PartOutcome { results, cut: min_fail.load(Ordering::SeqCst), out_of_time: out_of_time.load(Ordering::SeqCst) }
}
