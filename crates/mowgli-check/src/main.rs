//! The `mowgli` command-line tool.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use mowgli_check::analyses::litmus;
use mowgli_check::analyses::refine::ClientVerdict;
use mowgli_check::analyses::verdict::{Decided, Verdict};
use mowgli_core::StampOrder;
use mowgli_diag::Diagnostic;
use mowgli_libs::orders;

#[derive(Parser)]
#[command(name = "mowgli", version, about = "Checks concurrent libraries over RDMA with the Mowgli framework")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run litmus tests: print every reachable outcome and check each expectation.
    Litmus {
        /// Litmus files or directories (searched recursively for *.litmus).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Machine-readable output (one JSON document).
        #[arg(long)]
        json: bool,
        /// Report candidates explored, consistent executions and time per test.
        #[arg(long)]
        stats: bool,
        /// Run under another stamp order (a file with table `to`, optionally `ippo`/`oppo`).
        #[arg(long, value_name = "FILE")]
        stamp_order: Option<PathBuf>,
        /// Print only failures and the summary.
        #[arg(long, short)]
        quiet: bool,
        /// Write the counterexample execution of every failing `forbidden`
        /// expectation as a Graphviz file `DIR/TEST-lLINE.dot`.
        #[arg(long, value_name = "DIR")]
        dot: Option<PathBuf>,
        /// The engine: `explicit` (declarative, backtracking), `z3` (declarative,
        /// SMT; libraries rdmawait, msw, sv, bal), `operational` /
        /// `operational-simplified` (RDMA^TSO's machines, RDMA paper §3), or `both`
        /// (declarative and operational; a difference fails the test).
        #[arg(long, value_enum, default_value = "explicit")]
        engine: mowgli_check::analyses::litmus::operational::LitmusEngine,
        /// Output format: `text`, or `herd` (herd7's log, for mcompare7 and msum7;
        /// herd7 x86 tests only; the summary goes to stderr).
        #[arg(long, value_enum, default_value = "text", conflicts_with = "json")]
        format: LitmusFormat,
    },
    /// A shortest run of RDMA^TSO's operational machine reaching an outcome, step by
    /// step, with the execution graph it builds (docs/user-guide.md, "mowgli trace").
    Trace(mowgli_check::analyses::trace::TraceArgs),
    /// Bounded refinement (LOCO Def. 3.10): every outcome of the implementation on a
    /// client must be an outcome of the specification.
    Refine {
        /// The implementation file (`specs/impls/*.impl`).
        implementation: PathBuf,
        /// Client litmus files or directories over the implemented library.
        #[arg(long, value_name = "PATH", num_args = 1.., required_unless_present = "calls")]
        clients: Vec<PathBuf>,
        #[command(flatten)]
        gen: Box<GenArgs>,
        /// Machine-readable output (one JSON document).
        #[arg(long)]
        json: bool,
        /// Run under another stamp order.
        #[arg(long, value_name = "FILE")]
        stamp_order: Option<PathBuf>,
        /// Iterations per loop that is not a spin loop.
        #[arg(long, default_value_t = 4)]
        loop_bound: usize,
        /// Write the counterexample of every failing client as `DIR/CLIENT.dot`.
        #[arg(long, value_name = "DIR")]
        dot: Option<PathBuf>,
        /// Check against this specification instead of the one the file's
        /// `implements` line names (same methods; e.g. `rbl_rfe` for an `rbl`
        /// implementation). Clients naming the declared library run against it.
        #[arg(long, value_name = "LIB")]
        spec: Option<String>,
        /// Outcome screening: search only the implementation's plain executions that
        /// could reach an outcome the specification forbids (same verdicts; the
        /// implementation outcome counts then cover only those, up to the first
        /// forbidden one). `auto`: on for
        /// generated clients, off for `--clients`.
        #[arg(long, value_enum, default_value = "auto")]
        screen: Screen,
        /// Shrink every failing client to a smallest one that still fails (fewer
        /// threads, calls, arguments, nodes; locations merged) and write it as
        /// `DIR/NAME-min.litmus`, its forbidden outcome as an expectation.
        #[arg(long, value_name = "DIR")]
        minimise: Option<PathBuf>,
    },
    /// Local-soundness proof obligations (LOCO Def. 3.13) of an implementation,
    /// checked on every abstract execution up to a bound.
    Obligations {
        /// The implementation file (`specs/impls/*.impl`), with its `concretise` map.
        implementation: PathBuf,
        /// Abstract calls per thread.
        #[arg(long, value_name = "C", default_value_t = 2)]
        calls: usize,
        /// Threads (at most).
        #[arg(long, value_name = "T", default_value_t = 2)]
        threads: usize,
        /// Nodes (at most; default: as many as threads).
        #[arg(long, value_name = "N")]
        nodes: Option<usize>,
        /// Locations of the implemented library (at most; default as for `refine`).
        #[arg(long, value_name = "L")]
        locs: Option<usize>,
        /// Values 1..=V for value arguments.
        #[arg(long, value_name = "V", default_value_t = 1)]
        values: usize,
        /// Work identifiers per thread besides `_`.
        #[arg(long, value_name = "W", default_value_t = 1)]
        wids: usize,
        /// Size K of msw locations.
        #[arg(long, value_name = "K", default_value_t = 2)]
        tuple_size: usize,
        /// Ignore the file's `concretise` lines: infer the whole map.
        #[arg(long)]
        infer_map: bool,
        /// Rings: leave out one-thread programs, whose thread writes and reads its own
        /// ring (where I_RBL refutes O2: see docs/obligations.md).
        #[arg(long)]
        no_self_ring: bool,
        /// Stop at the first refuted obligation.
        #[arg(long)]
        first_fail: bool,
        /// Stop after S seconds (the table then says how far it got).
        #[arg(long, value_name = "S")]
        timeout: Option<f64>,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
        /// Run under another stamp order.
        #[arg(long, value_name = "FILE")]
        stamp_order: Option<PathBuf>,
        /// Iterations per loop that is not a spin loop.
        #[arg(long, default_value_t = 4)]
        loop_bound: usize,
        /// Write the counterexample of every refuted obligation as `DIR/METHOD-OBLIGATION.dot`.
        #[arg(long, value_name = "DIR")]
        dot: Option<PathBuf>,
        /// The engine that enumerates the implementation's executions: `explicit`
        /// or `z3` (implementations over rdmawait or sv).
        #[arg(long, value_enum, default_value = "explicit")]
        engine: mowgli_check::engines::explicit::Backend,
        /// Explicit engine: check every implementation execution on its own, never a
        /// class of executions under a partial witness that already satisfies every
        /// obligation (slower; to cross-check that shortcut).
        #[arg(long)]
        every_execution: bool,
        /// Also obligation D (LOCO Def. 3.5): the specification and each library the
        /// implementation uses are monotone and decomposable, on their own programs
        /// at the same bound.
        #[arg(long)]
        check_specs: bool,
        /// Check against this specification instead of the one the file's
        /// `implements` line names (same methods; e.g. `rbl_rfe`).
        #[arg(long, value_name = "LIB")]
        spec: Option<String>,
        /// Where each refutation's observing client is written (`DIR/NAME.litmus`,
        /// replayable with `mowgli refine IMPL --clients FILE`).
        #[arg(long, value_name = "DIR", default_value = "observed")]
        observe_out: PathBuf,
        /// Seconds to search for a client observing each refutation (0: do not search).
        #[arg(long, value_name = "S", default_value_t = 20.0)]
        observe_budget: f64,
        /// Check only the abstract programs (and, with `--check-specs`, the
        /// libraries) whose index is K-1 modulo N (1 ≤ K ≤ N); `mowgli merge`
        /// combines the `--json` reports of shards 1..N into the whole run's.
        #[arg(long, value_name = "K/N")]
        partition: Option<String>,
    },
    /// Compare two models on a corpus: every litmus test whose outcome set differs,
    /// with the outcomes only one side allows.
    Explore {
        /// The base model: a library of the litmus format (e.g. `rdmatso`) or a
        /// stamp-order file.
        #[arg(long, value_name = "MODEL")]
        base: String,
        /// The variant: a library (e.g. `rdmatso_nopcie`; the tests of the base library
        /// are run with it instead) or a stamp-order file.
        #[arg(long, value_name = "MODEL")]
        variant: String,
        /// Litmus files or directories.
        #[arg(required_unless_present_any = ["impls", "search"])]
        paths: Vec<PathBuf>,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
        /// Also re-run the obligations and generated-client refinement checks of the
        /// built-in implementations under both stamp orders, and list which stop
        /// holding under the variant (bounds: `mowgli cells --help`, docs/sensitivity.md).
        #[arg(long)]
        impls: bool,
        /// Where the implementations are (`isv.impl`, `ibal.impl`, … `iw.impl`).
        #[arg(long, value_name = "DIR", default_value = "specs/impls")]
        impls_dir: PathBuf,
        #[command(flatten)]
        search: Box<SearchArgs>,
    },
    /// Bounded-exhaustive litmus generation: every program over the libraries up to
    /// the bounds, one per renaming class, written with all its outcomes as expectations.
    Generate {
        /// Libraries (comma-separated; one suite each): rdmatso, rdmatso_nopcie,
        /// rdmatso_f1, rdmasc, rdmawait, sv.
        #[arg(long, value_name = "LIBS", value_delimiter = ',', default_value = "rdmatso")]
        libs: Vec<String>,
        #[command(flatten)]
        bounds: SuiteArgs,
        /// Write the tests as `DIR/NAME.litmus`.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Stop after N tests (smallest first).
        #[arg(long, value_name = "N")]
        max_tests: Option<usize>,
        /// Worker threads (default: the available parallelism).
        #[arg(long, value_name = "J")]
        jobs: Option<usize>,
        /// Compute outcomes under another stamp order.
        #[arg(long, value_name = "FILE")]
        stamp_order: Option<PathBuf>,
        /// Machine-readable report.
        #[arg(long)]
        json: bool,
        /// Generate only the programs (counted across the libraries) whose index is
        /// K-1 modulo N (1 ≤ K ≤ N); `mowgli merge` combines the `--json` reports
        /// of shards 1..N into the whole run's.
        #[arg(long, value_name = "K/N")]
        partition: Option<String>,
    },
    /// Cell sensitivity of a stamp-order table: flip every cell (✓ ↔ ✗, SN → ✗) and
    /// report the litmus tests whose outcomes change and the implementation checks
    /// that stop holding; draw the table as an SVG heat map. Implementation checks
    /// (docs/sensitivity.md): obligations of isv 2×2×1, ibal, ibal_all, irbl 2×2×2,
    /// imsw 2×2×1; refinement on generated clients of isv, ibal, ibal_all, irbl
    /// 2×2×2, imsw and iw 2×2×1 (threads × nodes × calls per thread).
    Cells {
        /// Litmus files or directories whose outcome sets are compared.
        paths: Vec<PathBuf>,
        /// The base order (default: LOCO Fig. 10 and RDMA Fig. 9).
        #[arg(long, value_name = "FILE")]
        stamp_order: Option<PathBuf>,
        /// The table whose cells are flipped.
        #[arg(long, value_name = "NAME", default_value = "to")]
        table: String,
        /// Only these cells (e.g. `I9,E3`).
        #[arg(long, value_name = "CELLS", value_delimiter = ',')]
        only: Vec<String>,
        /// What an SN cell becomes when flipped.
        #[arg(long, value_enum, default_value = "unordered")]
        sn_to: SnTo,
        /// Leave out the implementation checks.
        #[arg(long)]
        no_impls: bool,
        /// Where the implementations are.
        #[arg(long, value_name = "DIR", default_value = "specs/impls")]
        impls_dir: PathBuf,
        /// Add the generated clients of these libraries as candidate tests (e.g.
        /// `rdmawait,sv`), up to `--gen-threads`, `--gen-nodes`, `--gen-calls`.
        #[arg(long, value_name = "LIBS", value_delimiter = ',')]
        gen: Vec<String>,
        #[arg(long, value_name = "T", default_value_t = 2)]
        gen_threads: usize,
        #[arg(long, value_name = "N", default_value_t = 2)]
        gen_nodes: usize,
        #[arg(long, value_name = "C", default_value_t = 2)]
        gen_calls: usize,
        /// Write the heat map here (SVG).
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
        /// Iterations per loop that is not a spin loop.
        #[arg(long, default_value_t = 4)]
        loop_bound: usize,
        /// Flip only the cells (row by row, or in the order of `--only`) whose index
        /// is K-1 modulo N (1 ≤ K ≤ N); `mowgli merge` combines the `--json`
        /// reports of shards 1..N into the whole run's.
        #[arg(long, value_name = "K/N")]
        partition: Option<String>,
    },
    /// Combine the `--json` reports of the shards 1..N of one run (`--partition K/N`
    /// of refine --calls, obligations, generate, explore --search, cells) into the
    /// report of the whole run, with its verdict.
    Merge {
        /// The shards' JSON reports (e.g. `shard-*.json`), in any order.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print the merged JSON report (what the unsharded run prints with `--json`).
        #[arg(long)]
        json: bool,
        /// Merge the shards given even if some are missing: the report lists the
        /// missing ones and the verdict is at best `inconclusive` (exit 3).
        #[arg(long)]
        partial: bool,
    },
    /// Robustness (robustness paper Def. 5): is every consistent execution
    /// SC-consistent? With the syntactic conditions (LDRF, fenced, tree-fenced).
    Robust {
        /// Litmus files or directories over `rdmatso` or `rdmasc`.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The model: `rdmasc` (RDMA^sc) or `rdmatso` (RDMA^TSO); default: the test's library.
        #[arg(long, value_name = "MODEL")]
        model: Option<String>,
        /// Machine-readable output (one JSON document).
        #[arg(long)]
        json: bool,
        /// Write the non-SC execution of every non-robust test as `DIR/TEST.dot`.
        #[arg(long, value_name = "DIR")]
        dot: Option<PathBuf>,
        /// Fence synthesis: a smallest set of polls, rfences (mfences under TSO) making
        /// the test LDRF ∧ fenced, and one making it robust by the exact check.
        #[arg(long)]
        fix: bool,
        /// Only the syntactic conditions (no exact check): robust when LDRF ∧ fenced.
        #[arg(long, conflicts_with = "fix")]
        syntactic: bool,
        /// With `--fix`: write the fixed programs as `DIR/TEST-fixed-{syntactic,exact}.litmus`.
        #[arg(long, value_name = "DIR", requires = "fix")]
        fix_out: Option<PathBuf>,
        /// Run under another stamp order.
        #[arg(long, value_name = "FILE")]
        stamp_order: Option<PathBuf>,
    },
    /// Print the stamp order in force (LOCO Fig. 10 and RDMA Fig. 9 by default).
    StampOrder {
        #[arg(long, value_name = "FILE")]
        stamp_order: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum SnTo {
    Unordered,
    Ordered,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Screen {
    Auto,
    On,
    Off,
}

/// Generated clients (`mowgli refine IMPL --calls C …`).
#[derive(clap::Args)]
struct GenArgs {
    /// Generate every client up to the bounds with at most C calls per thread
    /// (instead of `--clients`).
    #[arg(long, value_name = "C", help_heading = "Generated clients")]
    calls: Option<usize>,
    /// Threads (at most).
    #[arg(long, value_name = "T", default_value_t = 2, help_heading = "Generated clients")]
    threads: usize,
    /// Nodes (at most; default: as many as threads).
    #[arg(long, value_name = "N", help_heading = "Generated clients")]
    nodes: Option<usize>,
    /// Locations of the implemented library (at most; default 1 for sv, 2 for msw and
    /// rdmawait, 0 for bal and rbl).
    #[arg(long, value_name = "L", help_heading = "Generated clients")]
    locs: Option<usize>,
    /// Values 1..=V for value arguments, tuple components and messages.
    #[arg(long, value_name = "V", default_value_t = 1, help_heading = "Generated clients")]
    values: usize,
    /// Barriers (bal) or rings (rbl), at most.
    #[arg(long, value_name = "B", default_value_t = 1, help_heading = "Generated clients")]
    objects: usize,
    /// Work identifiers per thread besides `_`.
    #[arg(long, value_name = "W", default_value_t = 1, help_heading = "Generated clients")]
    wids: usize,
    /// Size K of msw locations (`loc x @ n size K`).
    #[arg(long, value_name = "K", default_value_t = 2, help_heading = "Generated clients")]
    tuple_size: usize,
    /// A library whose CPU reads, writes, puts and fence observe the client
    /// (`rdmawait`: Read, Write, Put, Mfence; `sv`: Read, Write, GF; or `none`;
    /// default rdmawait for bal and bal_all, sv for rbl, none otherwise).
    #[arg(long, value_name = "LIB", help_heading = "Generated clients")]
    observer: Option<String>,
    /// Locations of the observer library (at most; default 1 for rbl, 2 otherwise).
    #[arg(long, value_name = "M", help_heading = "Generated clients")]
    observer_locs: Option<usize>,
    /// Check every generated client, without symmetry reduction.
    #[arg(long, help_heading = "Generated clients")]
    no_symmetry: bool,
    /// Check only the clients whose index is K-1 modulo N (1 ≤ K ≤ N); `mowgli
    /// merge` combines the `--json` reports of shards 1..N into the whole run's.
    #[arg(long, value_name = "K/N", help_heading = "Generated clients")]
    partition: Option<String>,
    /// Stop at the first failing client.
    #[arg(long, help_heading = "Generated clients")]
    first_fail: bool,
    /// Write each failing client as `DIR/NAME.litmus` (with the forbidden outcome as an expectation).
    #[arg(long, value_name = "DIR", help_heading = "Generated clients")]
    save_failing: Option<PathBuf>,
    /// Print the generated clients (of the partition) as litmus texts, without checking them.
    #[arg(long, help_heading = "Generated clients")]
    list_clients: bool,
    /// Start no new client after S seconds; the report then says how far the run got.
    #[arg(long, value_name = "S", help_heading = "Generated clients")]
    time_limit: Option<f64>,
    /// Worker threads (default: the available parallelism).
    #[arg(long, value_name = "J", help_heading = "Generated clients")]
    jobs: Option<usize>,
}

/// Bounds of generated litmus programs (`mowgli generate`, `mowgli explore --search`).
#[derive(clap::Args, Clone, Debug)]
struct SuiteArgs {
    /// Threads (at most).
    #[arg(long, value_name = "T", default_value_t = 2)]
    threads: usize,
    /// Threads (at least; default 2 for `generate`, 1 for `explore --search`).
    #[arg(long, value_name = "T")]
    min_threads: Option<usize>,
    /// Nodes (at most).
    #[arg(long, value_name = "N", default_value_t = 2)]
    nodes: usize,
    /// Instructions per thread (at most).
    #[arg(long, value_name = "I", default_value_t = 3)]
    instrs: usize,
    /// Locations (at most).
    #[arg(long, value_name = "L", default_value_t = 2)]
    locs: usize,
    /// Values 1..=V written by the programs (0 is every location's initial value).
    #[arg(long, value_name = "V", default_value_t = 1)]
    values: usize,
}

impl SuiteArgs {
    fn bounds(&self, min_threads: usize) -> mowgli_check::analyses::generate::SuiteBounds {
        mowgli_check::analyses::generate::SuiteBounds {
            threads: self.threads,
            nodes: self.nodes,
            instrs: self.instrs,
            locs: self.locs,
            values: self.values,
            min_threads: self.min_threads.unwrap_or(min_threads),
        }
    }
}

/// `mowgli explore --search`: generated distinguishing programs.
#[derive(clap::Args)]
struct SearchArgs {
    /// Instead of a corpus, search generated programs (smallest first) for ones the
    /// two models distinguish; stops at the first size class that has any.
    #[arg(long, help_heading = "Distinguishing-test search")]
    search: bool,
    /// The library programs are generated over, for stamp-order models.
    #[arg(long, value_name = "LIB", default_value = "rdmatso", help_heading = "Distinguishing-test search")]
    lib: String,
    #[command(flatten)]
    bounds: SuiteArgs,
    /// Stop after N distinguishing programs.
    #[arg(long, value_name = "N", help_heading = "Distinguishing-test search")]
    max: Option<usize>,
    /// Write each distinguishing program as `DIR/NAME-SIDE.litmus`, one file per
    /// model with that model's outcomes as expectations.
    #[arg(long, value_name = "DIR", help_heading = "Distinguishing-test search")]
    out: Option<PathBuf>,
    /// Worker threads (default: the available parallelism).
    #[arg(long, value_name = "J", help_heading = "Distinguishing-test search")]
    jobs: Option<usize>,
    /// Search only the programs whose index (smallest first) is K-1 modulo N (1 ≤ K
    /// ≤ N); `mowgli merge` combines the shards' `--json` reports.
    #[arg(long, value_name = "K/N", help_heading = "Distinguishing-test search")]
    partition: Option<String>,
}

fn load_order(path: &Option<PathBuf>) -> Result<StampOrder, Diagnostic> {
    let order = orders::default_order();
    match path {
        Some(p) => mowgli_check::lang::stamporder::load(p, &order),
        None => Ok(order),
    }
}

/// The stamp order in force and the implementation file, or the diagnostic to print.
fn load_impl(
    implementation: &std::path::Path,
    stamp_order: &Option<PathBuf>,
    spec: &Option<String>,
) -> Result<(StampOrder, mowgli_check::lang::implementation::Implementation), Diagnostic> {
    let order = load_order(stamp_order)?;
    let mut imp = mowgli_check::lang::implementation::Implementation::load(implementation, &order)?;
    if let Some(lib) = spec {
        imp.against(lib, &order).map_err(|e| {
            let args: Vec<String> = std::env::args().collect();
            let known = mowgli_libs::registry::KNOWN;
            let d = Diagnostic::command_line(&args, "--spec", lib, format!("--spec {lib}: {e}"));
            if known.contains(&lib.as_str()) {
                d
            } else {
                d.with_label("unknown").suggesting(lib, known.iter().copied())
            }
        })?;
    }
    Ok((order, imp))
}

/// Output of `mowgli litmus`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LitmusFormat {
    Text,
    Herd,
}

/// Appended to the reason of a verified run where a loop reached the unrolling
/// bound: the unrolling bound is part of the stated bound (docs/user-guide.md,
/// "Verdicts and exit codes").
const BOUNDED: &str = "; bounded: a loop reached the unrolling bound";

/// Ends a run by its verdict: the human output's last line states it (`verdict:
/// WORD (why)`), or, with `--json`, the document gets the fields `verdict` and
/// `verdict_reason`; the exit status is the verdict's (see `mowgli_check::analyses::verdict`).
fn conclude(d: &Decided, json: Option<serde_json::Value>) -> ExitCode {
    match json {
        Some(doc) => println!("{}", serde_json::to_string_pretty(&d.into_json(doc)).unwrap_or_default()),
        None => println!("{}", d.line()),
    }
    d.verdict.exit()
}

/// An input that cannot be read or is malformed (or an output that cannot be
/// written): the message on stderr, then the verdict `error`. In JSON the error
/// is a string, or for a [`Diagnostic`] its fields (`file`, `line`, `column`, …).
fn input_error(json: bool, msg: impl std::fmt::Display + serde::Serialize) -> ExitCode {
    let text = msg.to_string();
    eprintln!("{text}");
    let d = Decided::new(Verdict::Error, text.lines().next().unwrap_or_default());
    conclude(&d, json.then(|| serde_json::json!({ "errors": [msg] })))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Litmus { paths, json, stats, stamp_order, quiet, dot, engine, format } => {
            let order = match load_order(&stamp_order) {
                Ok(o) => o,
                Err(e) => return input_error(json, e),
            };
            let files = match litmus::collect(&paths) {
                Ok(f) => f,
                Err(e) => return input_error(json, e),
            };
            let start = Instant::now();
            let mut reports = Vec::new();
            let mut errors = Vec::new();
            for f in &files {
                match litmus::check_file_engine(f, &order, engine) {
                    Ok(r) => {
                        if format == LitmusFormat::Herd {
                            match litmus::herdlog::log(&r) {
                                Ok(l) => print!("{l}"),
                                Err(e) => {
                                    eprintln!("{e}");
                                    errors.push(e);
                                    continue;
                                }
                            }
                        } else if !json && (!quiet || !r.all_ok()) {
                            print!("{}", litmus::render(&r, stats));
                        }
                        if let Some(dir) = &dot {
                            for e in r.expectations.iter().filter(|e| !e.passed()) {
                                let Some(d) = &e.dot else { continue };
                                let path = dir.join(format!("{}-l{}.dot", r.name, e.line));
                                let written = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, d));
                                match written {
                                    Ok(()) => eprintln!("wrote {}", path.display()),
                                    Err(err) => {
                                        eprintln!("{}: cannot write: {err}", path.display());
                                        errors.push(mowgli_check::lang::InputError::whole_file(
                                            path.display().to_string(),
                                            format!("cannot write: {err}"),
                                        ));
                                    }
                                }
                            }
                        }
                        reports.push(r);
                    }
                    Err(e) => {
                        eprintln!("{e}");
                        errors.push(e);
                    }
                }
            }
            let total = start.elapsed();
            let nexp: usize = reports.iter().map(|r| r.expectations.len()).sum();
            let nfail: usize = reports.iter().map(|r| r.expectations.iter().filter(|e| !e.passed()).count()).sum();
            let nknown: usize =
                reports.iter().map(|r| r.expectations.iter().filter(|e| !e.ok && e.known.is_some()).count()).sum();
            let ndiff: usize = reports.iter().map(|r| r.engine_differences.len()).sum();
            let verdict = Verdict::of(!errors.is_empty(), nfail + ndiff > 0, true);
            let decided = Decided::new(
                verdict,
                match verdict {
                    Verdict::Error => format!("{} inputs unreadable, malformed or unwritable", errors.len()),
                    Verdict::Counterexample if ndiff > 0 => {
                        format!("{nfail} of {nexp} expectations fail; {ndiff} outcomes differ between the engines")
                    }
                    Verdict::Counterexample => format!("{nfail} of {nexp} expectations fail"),
                    _ => format!(
                        "{} of {nexp} expectations hold, {nknown} documented disagreements{}",
                        nexp - nknown,
                        if reports.iter().any(|r| r.bounded) { BOUNDED } else { "" }
                    ),
                },
            );
            if json {
                let doc = serde_json::json!({
                    "tests": reports,
                    "errors": errors,
                    "summary": {
                        "tests": reports.len(),
                        "expectations": nexp,
                        "ok": nexp - nfail - nknown,
                        "known_disagreements": nknown,
                        "failed": nfail,
                        "malformed": errors.len(),
                        "millis": total.as_secs_f64() * 1000.0,
                    }
                });
                conclude(&decided, Some(doc))
            } else {
                let cand: u64 = reports.iter().map(|r| r.stats.candidates).sum();
                let naive: f64 = reports.iter().map(|r| r.stats.naive).sum();
                let summary = format!(
                    "summary: {} tests, {} expectations: {} ok, {} known disagreements (documented), {} FAIL, {} malformed{}",
                    reports.len(),
                    nexp,
                    nexp - nfail - nknown,
                    nknown,
                    nfail,
                    errors.len(),
                    if stats {
                        format!(
                            "; {} candidates explored vs {:.0} naive ({:.1}x fewer); {:.1} ms",
                            cand,
                            naive,
                            naive / (cand.max(1) as f64),
                            total.as_secs_f64() * 1000.0
                        )
                    } else {
                        String::new()
                    }
                );
                if format == LitmusFormat::Herd {
                    // standard output holds the herd log alone (mcompare7 reads it)
                    eprintln!("{summary}");
                    eprintln!("{}", decided.line());
                    decided.verdict.exit()
                } else {
                    if let (true, Some(m)) = (stats, litmus::machine_summary(&reports)) {
                        println!("{m}");
                    }
                    println!("{summary}");
                    conclude(&decided, None)
                }
            }
        }
        Cmd::Trace(args) => {
            let order = match load_order(&args.stamp_order) {
                Ok(o) => o,
                Err(e) => return input_error(false, e),
            };
            let (text, decided) = mowgli_check::analyses::trace::run(&args, &order);
            print!("{text}");
            conclude(&decided, None)
        }
        Cmd::Refine { implementation, clients, gen, json, stamp_order, loop_bound, dot, spec, screen, minimise } => {
            if gen.calls.is_some() {
                if !clients.is_empty() {
                    return input_error(json, "give either `--clients` or generated clients (`--calls`), not both");
                }
                refine_generated(
                    &implementation,
                    &gen,
                    json,
                    (&stamp_order, &spec),
                    loop_bound,
                    (&dot, &minimise),
                    !matches!(screen, Screen::Off),
                )
            } else {
                let on = matches!(screen, Screen::On);
                refine(&implementation, &clients, json, (&stamp_order, &spec), loop_bound, (&dot, &minimise), on)
            }
        }
        c @ Cmd::Obligations { .. } => obligations(&c),
        Cmd::Explore { base, variant, paths, json, search, .. } if search.search => {
            explore_search(&base, &variant, &paths, json, &search)
        }
        Cmd::Explore { base, variant, paths, json, impls, impls_dir, .. } => {
            if impls {
                explore_impls(&base, &variant, &paths, json, &impls_dir)
            } else {
                explore(&base, &variant, &paths, json)
            }
        }
        Cmd::Generate { libs, bounds, out, max_tests, jobs, stamp_order, json, partition } => {
            generate(&libs, &bounds, &out, (max_tests, jobs, partition.as_deref()), &stamp_order, json)
        }
        c @ Cmd::Cells { .. } => cells(&c),
        Cmd::Merge { files, json, partial } => merge(&files, json, partial),
        Cmd::Robust { paths, model, json, dot, fix, fix_out, syntactic, stamp_order } => match load_order(&stamp_order)
        {
            Ok(order) => {
                let fix = fix.then_some(fix_out.as_deref());
                let (d, doc) = mowgli_check::analyses::robust::cli(
                    &paths,
                    model.as_deref(),
                    json,
                    dot.as_deref(),
                    fix,
                    !syntactic,
                    &order,
                );
                conclude(&d, doc)
            }
            Err(e) => input_error(json, e),
        },
        // prints the tables as a stamp-order file (no verdict line, so that the output
        // can be read back with `--stamp-order`)
        Cmd::StampOrder { stamp_order } => match load_order(&stamp_order) {
            Ok(o) => {
                for t in o.tables.values() {
                    println!("{t}");
                }
                Verdict::Verified.exit()
            }
            Err(e) => input_error(false, e),
        },
    }
}

fn refine(
    implementation: &std::path::Path,
    clients: &[PathBuf],
    json: bool,
    (stamp_order, spec): (&Option<PathBuf>, &Option<String>),
    loop_bound: usize,
    (dot, minimise): (&Option<PathBuf>, &Option<PathBuf>),
    screen: bool,
) -> ExitCode {
    let (order, imp) = match load_impl(implementation, stamp_order, spec) {
        Ok(x) => x,
        Err(e) => return input_error(json, e),
    };
    let mut minimised = Vec::new();
    let files = match litmus::collect(clients) {
        Ok(f) => f,
        Err(e) => return input_error(json, e),
    };
    let start = Instant::now();
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    let mut skipped = 0;
    for f in &files {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                let d =
                    mowgli_check::lang::InputError::whole_file(f.display().to_string(), format!("cannot read: {e}"));
                eprintln!("{d}");
                errors.push(d);
                continue;
            }
        };
        match mowgli_check::analyses::refine::refine_client(
            &imp,
            &order,
            &f.display().to_string(),
            &text,
            loop_bound,
            screen,
        ) {
            Ok(r) if r.verdict == ClientVerdict::Skipped => skipped += 1,
            Ok(r) => {
                if !json {
                    println!(
                        "{:4}  {} ({}): {} implementation outcomes, {} specification outcomes{}{}",
                        r.verdict,
                        r.name,
                        r.file,
                        r.impl_outcomes,
                        r.spec_outcomes,
                        if r.observed.is_empty() {
                            String::new()
                        } else {
                            format!(" (registers and the final values of {})", r.observed.join(", "))
                        },
                        if r.bounded { " [bounded: a loop reached the unrolling bound]" } else { "" }
                    );
                    if r.vacuous {
                        println!(
                            "      warning: the implementation has no terminating execution on this client (vacuous)"
                        );
                    }
                    if r.vacuity_unknown {
                        println!("      note: screened; whether the implementation has an execution here is undecided (budget)");
                    }
                    if let Some(m) = &r.stuck_msg {
                        println!(
                            "      note: {} unfoldings of the implementation stopped at an error, first: {m}",
                            r.stuck
                        );
                    }
                    if let Some(c) = &r.counterexample {
                        let o: Vec<String> = c.outcome.iter().map(|(k, v)| format!("{k}={v}")).collect();
                        println!("      the implementation reaches {}, which the specification forbids:", o.join("; "));
                        for l in c.execution.lines() {
                            println!("        {l}");
                        }
                    }
                }
                if let (Some(dir), Some(c)) = (dot, &r.counterexample) {
                    let path = dir.join(format!("{}.dot", r.name));
                    if let Err(e) = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, &c.dot)) {
                        let d = mowgli_check::lang::InputError::whole_file(
                            path.display().to_string(),
                            format!("cannot write: {e}"),
                        );
                        eprintln!("{d}");
                        errors.push(d);
                    }
                }
                if let (Some(dir), ClientVerdict::Fail) = (minimise, r.verdict) {
                    let file = f.display().to_string();
                    match mowgli_check::analyses::refine::minimise::minimise_to(
                        &imp, &order, &file, &text, loop_bound, dir,
                    ) {
                        Ok(w) => {
                            if !json {
                                println!("      {}", w.line());
                            }
                            minimised.push(w);
                        }
                        Err(e) => {
                            eprintln!("{e}");
                            errors.push(e);
                        }
                    }
                }
                reports.push(r);
            }
            Err(e) => {
                eprintln!("{e}");
                errors.push(e);
            }
        }
    }
    let failed = reports.iter().filter(|r| r.verdict == ClientVerdict::Fail).count();
    // no client of the implemented library among the inputs: nothing was checked
    let none = reports.is_empty() && errors.is_empty();
    let verdict = Verdict::of(!errors.is_empty() || none, failed > 0, true);
    let decided = Decided::new(
        verdict,
        match verdict {
            Verdict::Error if none => format!(
                "none of the {} tests given is a client of `{}`: nothing was checked",
                files.len(),
                imp.implements
            ),
            Verdict::Error => format!("{} inputs unreadable, malformed or unwritable", errors.len()),
            Verdict::Counterexample => {
                format!("{failed} of {} clients reach an outcome the specification forbids", reports.len())
            }
            _ => format!(
                "every outcome of the implementation on the {} clients is an outcome of the specification{}",
                reports.len(),
                if reports.iter().any(|r| r.bounded) { BOUNDED } else { "" }
            ),
        },
    );
    if json {
        let doc = serde_json::json!({
            "implementation": imp.name,
            "implements": imp.implements,
            "uses": imp.uses,
            "clients": reports,
            "minimised": minimised,
            "errors": errors,
            "summary": { "clients": reports.len(), "ok": reports.len() - failed, "failed": failed, "errors": errors.len(),
                         "skipped": skipped,
                         "millis": start.elapsed().as_secs_f64() * 1000.0 }
        });
        conclude(&decided, Some(doc))
    } else {
        println!(
            "summary: implementation `{}` of `{}` over {}: {} clients, {} ok, {} FAIL, {} errors ({} tests skipped: they do not use `{}`); {:.1} ms",
            imp.name,
            imp.implements,
            imp.uses.join(", "),
            reports.len(),
            reports.len() - failed,
            failed,
            errors.len(),
            skipped,
            imp.implements,
            start.elapsed().as_secs_f64() * 1000.0
        );
        conclude(&decided, None)
    }
}

fn refine_generated(
    implementation: &std::path::Path,
    args: &GenArgs,
    json: bool,
    (stamp_order, spec): (&Option<PathBuf>, &Option<String>),
    loop_bound: usize,
    (dot, minimise): (&Option<PathBuf>, &Option<PathBuf>),
    screen: bool,
) -> ExitCode {
    use mowgli_check::analyses::refine::gen::{self, Bounds, Partition, Progress, RunOptions};

    let (order, imp) = match load_impl(implementation, stamp_order, spec) {
        Ok(x) => x,
        Err(e) => return input_error(json, e),
    };
    let partition = match args.partition.as_deref().map(Partition::parse).transpose() {
        Ok(p) => p.unwrap_or(Partition::ALL),
        Err(e) => return input_error(json, e),
    };
    let calls = args.calls.unwrap_or(1);
    let mut bounds = Bounds::new(&imp.implements, args.threads, args.nodes.unwrap_or(args.threads), calls);
    if let Some(l) = args.locs {
        bounds.locs = l;
    }
    bounds.values = args.values;
    bounds.objects = args.objects;
    bounds.wids = args.wids;
    bounds.tuple_size = args.tuple_size;
    if let Some(m) = args.observer_locs {
        bounds.observer_locs = m;
    }
    bounds.symmetry = !args.no_symmetry;
    match args.observer.as_deref() {
        Some("none") => bounds.observer = None,
        Some(o) => bounds.observer = Some(o.to_string()),
        None => {}
    }
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let time_limit = args.time_limit.map(std::time::Duration::from_secs_f64);
    let opts = RunOptions { partition, first_fail: args.first_fail, loop_bound, jobs, time_limit, screen };

    if args.list_clients {
        let g = match gen::Generator::new(&imp.implements, &order, &bounds) {
            Ok(g) => g,
            Err(e) => return input_error(json, format!("{}: {e}", implementation.display())),
        };
        let (mut index, mut generated) = (0, 0);
        for size in 1..=g.max_size() {
            let class = g.class(size);
            generated += class.generated;
            for i in 0..class.distinct() {
                if partition.contains(index) {
                    println!("{}", g.render(&class, i, &gen::client_name(&imp.implements, index)));
                }
                index += 1;
            }
        }
        // a listing, not a check: the output is litmus text only (no verdict line)
        eprintln!("{generated} clients generated, {index} after symmetry reduction");
        return Verdict::Verified.exit();
    }
    let bar = progress_bar(
        0,
        json,
        "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} clients ({per_sec}, eta {eta}) {msg}",
    );
    let fails = std::sync::atomic::AtomicUsize::new(0);
    let started = Instant::now();
    let on_progress = |p: Progress| match p {
        Progress::Class { size, distinct, to_check } => {
            bar.inc_length(to_check as u64);
            bar.set_message(format!("size {size}: {distinct} clients"));
        }
        Progress::Checked { failed } => {
            if let Some((name, size)) = failed {
                // each failing client the moment it is found (the details follow the run)
                let n = fails.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                let ms = started.elapsed().as_secs_f64() * 1000.0;
                if !json {
                    bar.suspend(|| println!("found after {ms:.0} ms: {name} (size {size}) fails ({n} so far)"));
                }
            }
            bar.inc(1);
        }
    };
    let rep = match gen::run(&imp, &order, &bounds, &opts, &on_progress) {
        Ok(r) => r,
        Err(e) => {
            bar.finish_and_clear();
            return input_error(json, format!("{}: {e}", implementation.display()));
        }
    };
    bar.finish_and_clear();

    let mut write_errors = Vec::new();
    if let Some(dir) = &args.save_failing {
        for f in &rep.failures {
            let path = dir.join(format!("{}.litmus", f.name));
            match std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, &f.text)) {
                Ok(()) => {
                    if !json {
                        eprintln!("wrote {}", path.display())
                    }
                }
                Err(e) => write_errors.push(format!("{}: cannot write: {e}", path.display())),
            }
        }
    }
    if let Some(dir) = dot {
        for f in &rep.failures {
            let Some(c) = &f.report.counterexample else { continue };
            let path = dir.join(format!("{}.dot", f.name));
            if let Err(e) = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, &c.dot)) {
                write_errors.push(format!("{}: cannot write: {e}", path.display()));
            }
        }
    }
    let mut minimised = Vec::new();
    if let Some(dir) = minimise {
        for f in &rep.failures {
            match mowgli_check::analyses::refine::minimise::minimise_to(&imp, &order, &f.name, &f.text, loop_bound, dir)
            {
                Ok(w) => minimised.push(w),
                Err(e) => write_errors.push(e.headline()),
            }
        }
    }
    for e in &write_errors {
        eprintln!("{e}");
    }
    // the options that define the run: every shard of it has the same (`mowgli merge`)
    let run = serde_json::json!({
        "implementation": implementation.display().to_string(),
        "calls": calls, "threads": args.threads, "nodes": args.nodes, "locs": args.locs,
        "values": args.values, "objects": args.objects, "wids": args.wids, "tuple_size": args.tuple_size,
        "observer": args.observer, "observer_locs": args.observer_locs, "no_symmetry": args.no_symmetry,
        "first_fail": args.first_fail, "time_limit": args.time_limit,
        "stamp_order": stamp_order.as_ref().map(|p| p.display().to_string()), "spec": spec,
        "loop_bound": loop_bound, "screen": screen,
    });
    let doc = mowgli_check::analyses::merge::stamp(
        serde_json::json!({
            "implementation": imp.name,
            "implements": imp.implements,
            "uses": imp.uses,
            "generated": rep,
            "minimised": minimised,
        }),
        "refine",
        partition,
        run,
    );
    // clients that could not be checked (e.g. too many values: a size limit) and the
    // time limit leave the bound uncovered; a failure is a counterexample anyway
    let decided = mowgli_check::analyses::merge::decide_refine(&doc, write_errors.len());
    if json {
        conclude(&decided, Some(doc))
    } else {
        let b = &rep.bounds;
        println!(
            "generated clients of `{}`: up to {} threads on up to {} nodes, {} calls per thread, {} locations{}, values 1..={}{}{}",
            rep.library,
            b.threads,
            b.nodes,
            b.calls,
            b.locs,
            match &b.observer {
                Some(o) => format!(" (+ {} `{o}` locations)", b.observer_locs),
                None => String::new(),
            },
            b.values,
            if b.symmetry { "" } else { " (no symmetry reduction)" },
            if rep.partition.count > 1 {
                format!("; partition {}/{}", rep.partition.index, rep.partition.count)
            } else {
                String::new()
            }
        );
        for c in &rep.classes {
            println!(
                "  size {:2}: {:8} generated, {:7} distinct, {:7} checked, {} FAIL",
                c.size, c.generated, c.distinct, c.checked, c.failed
            );
        }
        if let Some(f) = rep.failures.first() {
            let r = &f.report;
            println!("first failing client (index {}, {} calls):", f.index, f.size);
            for l in f.text.lines() {
                println!("  {l}");
            }
            if let Some(c) = &r.counterexample {
                println!("the implementation execution:");
                for l in c.execution.lines() {
                    println!("    {l}");
                }
            }
        }
        for w in &minimised {
            println!("{} ({}): {}", w.client, w.file, w.line());
        }
        if let Some(e) = &rep.first_error {
            println!("first error: {e}");
        }
        if let Some((name, ms)) = &rep.slowest {
            println!("slowest client: {name} ({ms:.1} ms; `--list-clients` prints it)");
        }
        println!(
            "summary: implementation `{}` of `{}` over {}: {} clients generated, {} after symmetry reduction, {} checked{}: {} ok, {} FAIL, {} errors{}{}{}{}{}; {:.1} ms",
            imp.name,
            imp.implements,
            imp.uses.join(", "),
            rep.generated,
            rep.distinct,
            rep.checked,
            if rep.partition.count > 1 {
                format!(" (partition {}/{})", rep.partition.index, rep.partition.count)
            } else {
                String::new()
            },
            rep.ok,
            rep.failed,
            rep.errors,
            if rep.vacuous > 0 { format!(", {} vacuous (no implementation outcome)", rep.vacuous) } else { String::new() },
            if rep.vacuity_unknown > 0 {
                format!(", {} with vacuity undecided (the search for any execution ran out of budget)", rep.vacuity_unknown)
            } else {
                String::new()
            },
            if rep.screened > 0 {
                format!(
                    ", {} screened ({} without any witness search: every outcome their unfoldings can combine is allowed)",
                    rep.screened, rep.screened_all
                )
            } else {
                String::new()
            },
            if rep.bounded > 0 { format!(", {} bounded", rep.bounded) } else { String::new() },
            if rep.timed_out {
                " (stopped by the time limit)"
            } else if rep.complete {
                ""
            } else {
                " (stopped at the first failure)"
            },
            rep.millis
        );
        conclude(&decided, None)
    }
}

/// For the human report of a shard: which part of the run it covers.
fn print_shard(partition: mowgli_check::analyses::refine::gen::Partition, what: &str) {
    if partition.count > 1 {
        println!(
            "partition {}/{}: the {what} whose index is {} modulo {} (`mowgli merge` combines the shards' --json reports)",
            partition.index,
            partition.count,
            partition.index - 1,
            partition.count
        );
    }
}

/// A progress bar of `len` steps on stderr, drawn only when stderr is a terminal
/// and the output is not JSON.
fn progress_bar(len: u64, json: bool, template: &str) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::io::IsTerminal;
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if json || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()));
    bar
}

fn obligations(cmd: &Cmd) -> ExitCode {
    use mowgli_check::analyses::obligations::{self, Obligation};
    use mowgli_check::analyses::refine::gen::{Bounds, Partition};
    use mowgli_check::lang::maps;
    let Cmd::Obligations {
        implementation,
        calls,
        threads,
        nodes,
        locs,
        values,
        wids,
        tuple_size,
        infer_map,
        no_self_ring,
        first_fail,
        timeout,
        json,
        stamp_order,
        loop_bound,
        dot,
        engine,
        every_execution,
        check_specs,
        spec,
        observe_out,
        observe_budget,
        partition,
    } = cmd
    else {
        return input_error(false, "internal: not an obligations command");
    };
    let fail = |m: String| input_error(*json, m);
    let partition = match partition.as_deref().map(Partition::parse).transpose() {
        Ok(p) => p.unwrap_or(Partition::ALL),
        Err(e) => return fail(format!("--partition: {e}")),
    };
    let file = implementation.display().to_string();
    let (order, imp) = match load_impl(implementation, stamp_order, spec) {
        Ok(x) => x,
        Err(e) => return input_error(*json, e),
    };
    let map = if *infer_map { maps::ConcMap::default() } else { imp.map.clone() };
    let mut bounds = Bounds::new(&imp.implements, *threads, nodes.unwrap_or(*threads), *calls);
    if let Some(l) = locs {
        bounds.locs = *l;
    }
    bounds.values = *values;
    bounds.wids = *wids;
    bounds.tuple_size = *tuple_size;
    bounds.self_ring = !no_self_ring;
    bounds.self_reading_writers = !no_self_ring;
    let all = match obligations::abstract_programs(&imp, &order, &bounds) {
        Ok(c) => c,
        Err(e) => return fail(format!("{file}: {e}")),
    };
    // a shard checks the abstract programs of its partition; `global[i]` is the
    // index in the whole bound of the i-th of them
    let (global, clients): (Vec<usize>, Vec<(String, String)>) =
        all.iter().cloned().enumerate().filter(|(i, _)| partition.contains(*i)).unzip();
    // a progress bar on stderr when it is a terminal (not with --json)
    let bar = progress_bar(clients.len() as u64, *json, "{bar:40} {pos}/{len} abstract programs {elapsed}");
    let tick = bar.clone();
    let opts = obligations::Options {
        loop_bound: *loop_bound,
        time_limit: timeout.map(std::time::Duration::from_secs_f64),
        first_fail: *first_fail,
        progress: Some(std::sync::Arc::new(move |n| tick.set_position(n as u64))),
        backend: *engine,
        every_execution: *every_execution,
        // each final refutation the moment it is found (smallest bound first)
        on_failure: (!*json).then(|| {
            let bar = bar.clone();
            let cb: obligations::OnFailure = std::sync::Arc::new(move |f: &obligations::Failure, ms: f64| {
                let (t, c, n, _) = obligations::dimensions(&f.client);
                let name = f.client.lines().next().unwrap_or("").trim_start_matches("# ");
                bar.suspend(|| {
                    println!(
                        "found after {ms:.0} ms: {} refuted for {} on {name} ({t} thread{} × {c} call{} × {n} node{})",
                        f.obligation.name(),
                        f.methods.join(", "),
                        if t == 1 { "" } else { "s" },
                        if c == 1 { "" } else { "s" },
                        if n == 1 { "" } else { "s" },
                    )
                });
            });
            cb
        }),
    };
    let rep = obligations::check_clients(&imp, &order, &clients, &map, &opts);
    bar.finish_and_clear();
    let mut rep = match rep {
        Ok(r) => r,
        Err(e) => return fail(format!("{file}: {e}")),
    };
    for r in &mut rep.programs {
        r.index = global.get(r.index).copied().unwrap_or(r.index);
    }
    if *check_specs {
        use obligations::spec;
        // each library's D is checked by one shard
        for (i, lib) in spec::libraries_of(&imp.implements, &imp.uses).into_iter().enumerate() {
            if !partition.contains(i) {
                continue;
            }
            if mowgli_libs::registry::library(&lib, &order).is_ok_and(|l| !spec::applies(l.as_ref())) {
                continue;
            }
            match spec::check_library(&lib, &order, &bounds, opts.time_limit) {
                Ok(r) => rep.specs.push(r),
                Err(e) => return fail(format!("{file}: D for `{lib}`: {e}")),
            }
        }
    }
    // from each refutation to a client that observes it, or what was tried (issue 17)
    if *observe_budget > 0.0 && !rep.failures.is_empty() {
        let budget = std::time::Duration::from_secs_f64(*observe_budget);
        obligations::observe::observe_all(&imp, &order, &mut rep, *loop_bound, budget);
        for o in &rep.observations {
            let (Some(name), Some(text)) = (&o.name, &o.client) else { continue };
            let path = observe_out.join(format!("{name}.litmus"));
            if let Err(e) = std::fs::create_dir_all(observe_out).and_then(|_| std::fs::write(&path, text)) {
                return fail(format!("{}: cannot write: {e}", path.display()));
            }
        }
    }
    if let Some(dir) = dot {
        for f in &rep.failures {
            let path = dir.join(format!("{}-{}.dot", f.methods.join("+"), f.obligation.name()));
            if let Err(e) = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, &f.dot)) {
                return fail(format!("{}: cannot write: {e}", path.display()));
            }
        }
    }
    // the options that define the run: every shard of it has the same (`mowgli merge`)
    let run = serde_json::json!({
        "implementation": file, "calls": calls, "threads": threads, "nodes": nodes, "locs": locs,
        "values": values, "wids": wids, "tuple_size": tuple_size, "infer_map": infer_map,
        "no_self_ring": no_self_ring, "first_fail": first_fail, "timeout": timeout,
        "stamp_order": stamp_order.as_ref().map(|p| p.display().to_string()), "loop_bound": loop_bound,
        "engine": format!("{engine:?}"), "every_execution": every_execution, "check_specs": check_specs,
        "spec": spec, "observe_budget": observe_budget,
    });
    let mut doc = serde_json::to_value(&rep).unwrap_or_default();
    doc["abstract_programs"] = serde_json::Value::from(all.len());
    let doc = mowgli_check::analyses::merge::stamp(doc, "obligations", partition, run);
    // the bound is covered when every abstract program (of the partition) was
    // checked to the end and, with --check-specs, every library's D as well; a
    // refutation is a counterexample even when a limit stopped the run after it
    let decided = mowgli_check::analyses::merge::decide_obligations(&doc);
    if *json {
        return conclude(&decided, Some(doc));
    } else {
        println!(
            "obligations of `{}` ({} over {}), bound: {} threads, {} nodes, {} calls per thread, values 1..{}{}",
            rep.implementation,
            rep.implements,
            rep.uses.join(", "),
            threads,
            nodes.unwrap_or(*threads),
            calls,
            values,
            if partition.count > 1 {
                format!(
                    "; partition {}/{}: {} of the {} abstract programs",
                    partition.index,
                    partition.count,
                    clients.len(),
                    all.len()
                )
            } else {
                String::new()
            }
        );
        print!("{:12}", "method");
        for o in Obligation::ALL {
            print!(" {:>14}", o.name());
        }
        println!();
        for m in &rep.methods {
            print!("{m:12}");
            for o in Obligation::ALL {
                let c = &rep.cells[m][&o];
                let s = match c.failure {
                    Some(i) => format!("FAIL (#{})", i + 1),
                    None if c.checked == 0 => "-".to_string(),
                    None if rep.complete => format!("ok ({})", c.checked),
                    None => format!("ok? ({})", c.checked),
                };
                print!(" {s:>14}");
            }
            println!();
        }
        for (i, f) in rep.failures.iter().enumerate() {
            println!(
                "\n#{} {} ({}) refuted for {}: {}",
                i + 1,
                f.obligation.name(),
                f.obligation.what(),
                f.methods.join(", "),
                f.reason
            );
            println!("  abstract program:");
            for l in f.client.lines().filter(|l| !l.starts_with('#') && !l.starts_with('"')) {
                println!("    {l}");
            }
            for l in f.execution.lines() {
                println!("  {l}");
            }
            match rep.observations.get(i) {
                Some(o) => match (&o.name, &o.shape) {
                    (Some(name), Some(shape)) => println!(
                        "  observed by client {} ({shape}; found after {} of {} candidates): `mowgli refine {} --clients {}` replays it",
                        observe_out.join(format!("{name}.litmus")).display(),
                        o.tried,
                        o.candidates,
                        implementation.display(),
                        observe_out.join(format!("{name}.litmus")).display(),
                    ),
                    _ => println!(
                        "  refuted, not observed by the {} clients tried of {} ({}){}{}",
                        o.tried,
                        o.candidates,
                        o.bound,
                        o.note.as_ref().map(|n| format!(": {n}")).unwrap_or_default(),
                        o.first_error
                            .as_ref()
                            .map(|e| format!("; {} could not be run, the first: {e}", o.errors))
                            .unwrap_or_default()
                    ),
                },
                None => println!("  (no client was searched for: --observe-budget 0)"),
            }
        }
        if !rep.inferred.is_empty() {
            println!("\ninferred concretisation entries (add them to the file to pin them):");
            for e in &rep.inferred {
                println!("  {}", e.render());
            }
        }
        let z3 = *engine == mowgli_check::engines::explicit::Backend::Z3;
        let counted = if z3 {
            format!(
                "{} abstract executions of groups of plain executions discharged by Z3 (unsat), {} implementation executions checked explicitly",
                rep.plain_discharged, rep.executions
            )
        } else {
            format!(
                "{} implementation executions ({} of them classes: executions under a partial witness that already satisfies every obligation, checked once)",
                rep.executions, rep.classes
            )
        };
        println!(
            "\nsummary: {} abstract programs, {} abstract executions, {counted}; {} obligations refuted{}; {:.1} ms",
            rep.clients,
            rep.abstract_executions,
            rep.failures.len(),
            if rep.complete { "" } else { " (stopped early: the bound was not covered)" },
            rep.millis
        );
        if z3 {
            println!("(ok (N): discharged on N abstract executions at this bound, each group of plain executions by one Z3 query over all its witnesses; - : no execution exercised it)");
        } else {
            println!("(ok (N): discharged on N executions at this bound, counting each class once; - : no execution exercised it)");
        }
        for d in &rep.specs {
            let mono = match &d.not_monotone {
                Some(why) => format!("FAILS: {why}"),
                None if !d.mentions_hb => "holds (the predicate does not mention hb)".to_string(),
                None => format!("holds on {} witnesses, {} one-pair hb extensions", d.witnesses, d.extensions),
            };
            let deco = match (&d.not_decomposable, &d.not_decomposable_sup) {
                (_, Some(why)) => format!("FAILS: {why}"),
                (Some(why), None) => format!(
                    "holds on {} executions, {} splits with so read as an inclusion (so ⊇ what the witness generates), but not with so as an equation: {why}",
                    d.executions, d.splits
                ),
                (None, None) => format!("holds on {} executions, {} splits", d.executions, d.splits),
            };
            println!(
                "D (Def. 3.5) for `{}` on its {} programs of the bound{}: monotone {mono}; decomposable {deco}",
                d.library,
                d.programs,
                if d.complete { "" } else { " (stopped early)" }
            );
        }
    }
    conclude(&decided, None)
}

/// One test whose outcomes differ between two models: `what`, then per side (model,
/// number of outcomes, the outcomes only that side allows).
fn print_difference<T: std::fmt::Display>(what: &str, base: (&str, usize, &[T]), variant: (&str, usize, &[T])) {
    println!("{what}: {} outcomes under {}, {} under {}", base.1, base.0, variant.1, variant.0);
    for (model, _, only) in [base, variant] {
        for o in only {
            println!("  only {model}: {o}");
        }
    }
}

fn explore(base: &str, variant: &str, paths: &[PathBuf], json: bool) -> ExitCode {
    use mowgli_check::analyses::explore::{self, Model};
    let default = orders::default_order();
    let (b, v) = match (Model::parse(base, &default), Model::parse(variant, &default)) {
        (Ok(b), Ok(v)) => (b, v),
        (Err(e), _) | (_, Err(e)) => return input_error(json, e),
    };
    let cmp = match explore::compare(paths, &b, &v, &default) {
        Ok(c) => c,
        Err(e) => return input_error(json, e),
    };
    // the question is whether the two models agree on the corpus: a test they tell
    // apart is the counterexample
    let verdict = Verdict::of(!cmp.errors.is_empty(), !cmp.differences.is_empty(), true);
    let decided = Decided::new(
        verdict,
        match verdict {
            Verdict::Error => format!("{} tests unreadable or malformed", cmp.errors.len()),
            Verdict::Counterexample => {
                format!("{} of {} tests have different outcomes under the two models", cmp.differences.len(), cmp.tests)
            }
            _ => format!("the two models give the same outcomes on all {} tests", cmp.tests),
        },
    );
    if json {
        return conclude(&decided, Some(serde_json::to_value(&cmp).unwrap_or_default()));
    } else {
        for d in &cmp.differences {
            print_difference(
                &format!("{} ({})", d.name, d.file),
                (&cmp.base, d.base_outcomes, &d.only_base),
                (&cmp.variant, d.variant_outcomes, &d.only_variant),
            );
        }
        for e in &cmp.errors {
            println!("error: {e}");
        }
        println!(
            "summary: {} vs {}: {} tests, {} differ, {} the same{}, {} errors; {:.1} ms",
            cmp.base,
            cmp.variant,
            cmp.tests,
            cmp.differences.len(),
            cmp.same,
            if cmp.skipped > 0 {
                format!(" ({} skipped: they do not use `{}`)", cmp.skipped, cmp.base)
            } else {
                String::new()
            },
            cmp.errors.len(),
            cmp.millis
        );
    }
    conclude(&decided, None)
}

/// `mowgli explore --base A --variant B --impls [PATHS]`: the corpus comparison (when
/// paths are given) and the implementation checks under both stamp orders.
fn explore_impls(base: &str, variant: &str, paths: &[PathBuf], json: bool, dir: &std::path::Path) -> ExitCode {
    use mowgli_check::analyses::explore::{self, Model};
    use mowgli_check::analyses::sensitivity;
    let default = orders::default_order();
    let (b, v) = match (Model::parse(base, &default), Model::parse(variant, &default)) {
        (Ok(b), Ok(v)) => (b, v),
        (Err(e), _) | (_, Err(e)) => return input_error(json, e),
    };
    let (Model::Order { order: bo, .. }, Model::Order { order: vo, .. }) = (&b, &v) else {
        return input_error(json, format!("{base}:0:0: `--impls` needs --base and --variant to be stamp-order files"));
    };
    if !dir.is_dir() {
        return input_error(
            json,
            format!("{}:0:0: expected a directory of implementation files (`--impls-dir`)", dir.display()),
        );
    }
    let cmp = if paths.is_empty() {
        None
    } else {
        match explore::compare(paths, &b, &v, &default) {
            Ok(c) => Some(c),
            Err(e) => return input_error(json, e),
        }
    };
    let start = Instant::now();
    let suite = sensitivity::default_suite(dir);
    let checks = sensitivity::compare_checks(&suite, bo, vo, 4);
    let millis = start.elapsed().as_secs_f64() * 1000.0;
    let errors: Vec<String> =
        checks.iter().flat_map(|c| [&c.base.error, &c.variant.error]).flatten().cloned().collect();
    // the models are told apart by a corpus test whose outcomes differ or by an
    // implementation check that holds under one and not the other
    let corpus_errors = cmp.as_ref().map_or(0, |c| c.errors.len());
    let differ = cmp.as_ref().map_or(0, |c| c.differences.len());
    let told_apart = checks.iter().filter(|c| c.broken() || c.repaired()).count();
    let verdict = Verdict::of(!errors.is_empty() || corpus_errors > 0, differ + told_apart > 0, true);
    let decided = Decided::new(
        verdict,
        match verdict {
            Verdict::Error => {
                format!("{} checks could not run, {corpus_errors} tests unreadable or malformed", errors.len())
            }
            Verdict::Counterexample => format!(
                "the models are told apart: {differ} corpus tests differ, {told_apart} implementation checks change"
            ),
            _ => format!("the two models agree on the corpus and on the {} implementation checks", checks.len()),
        },
    );
    if json {
        let doc = serde_json::json!({
            "base": b.label(),
            "variant": v.label(),
            "corpus": cmp,
            "implementations": checks,
            "broken": checks.iter().filter(|c| c.broken()).map(|c| &c.check).collect::<Vec<_>>(),
            "millis": millis,
        });
        return conclude(&decided, Some(doc));
    } else {
        if let Some(cmp) = &cmp {
            for d in &cmp.differences {
                println!(
                    "{} ({}): {} outcomes under {}, {} under {}",
                    d.name, d.file, d.base_outcomes, cmp.base, d.variant_outcomes, cmp.variant
                );
                for o in &d.only_base {
                    println!("  only {}: {o}", cmp.base);
                }
                for o in &d.only_variant {
                    println!("  only {}: {o}", cmp.variant);
                }
            }
            println!(
                "corpus: {} tests, {} differ, {} the same, {} errors; {:.1} ms",
                cmp.tests,
                cmp.differences.len(),
                cmp.same,
                cmp.errors.len(),
                cmp.millis
            );
        }
        let status = |r: &sensitivity::CheckResult| match (&r.error, r.holds) {
            (Some(_), _) => "error".to_string(),
            (None, true) => format!("holds ({})", r.checked),
            (None, false) => "REFUTED".to_string(),
        };
        println!("{:32} {:>16} {:>16} {:>9} {:>9}", "implementation check", "base", "variant", "base ms", "var. ms");
        for c in &checks {
            println!(
                "{:32} {:>16} {:>16} {:>9.1} {:>9.1}",
                c.check,
                status(&c.base),
                status(&c.variant),
                c.base.millis,
                c.variant.millis
            );
        }
        for c in checks.iter().filter(|c| c.broken()) {
            println!("\nstops holding under {}: {}", v.label(), c.check);
            println!("  {}", c.variant.failure.as_deref().unwrap_or(""));
            for l in c.variant.witness.as_deref().unwrap_or("").lines().filter(|l| !l.starts_with('"')) {
                println!("    {l}");
            }
        }
        for c in checks.iter().filter(|c| c.repaired()) {
            println!("\nrefuted under {} but holds under {}: {}", b.label(), v.label(), c.check);
        }
        for e in &errors {
            println!("error: {e}");
        }
        println!(
            "summary: {} vs {}: {} implementation checks, {} stop holding under the variant, {} errors; {:.1} ms",
            b.label(),
            v.label(),
            checks.len(),
            checks.iter().filter(|c| c.broken()).count(),
            errors.len(),
            millis
        );
    }
    conclude(&decided, None)
}

/// `mowgli cells`: cell sensitivity of a stamp-order table.
fn cells(cmd: &Cmd) -> ExitCode {
    use mowgli_check::analyses::refine::gen::{Bounds, Partition};
    use mowgli_check::analyses::sensitivity::{self, CellOptions};
    use mowgli_core::Cell;
    let Cmd::Cells {
        paths,
        stamp_order,
        table,
        only,
        sn_to,
        no_impls,
        impls_dir,
        gen,
        gen_threads,
        gen_nodes,
        gen_calls,
        svg,
        json,
        loop_bound,
        partition,
    } = cmd
    else {
        return input_error(false, "internal: not a cells command");
    };
    let fail = |m: String| input_error(*json, m);
    let partition = match partition.as_deref().map(Partition::parse).transpose() {
        Ok(p) => p.unwrap_or(Partition::ALL),
        Err(e) => return fail(format!("--partition: {e}")),
    };
    let base = match load_order(stamp_order) {
        Ok(o) => o,
        Err(e) => return input_error(*json, e),
    };
    let src = stamp_order.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "the default order".into());
    let Some(t) = base.table(table) else {
        return fail(format!(
            "{src}:1:1: no table `{table}` (tables: {})",
            base.tables.keys().cloned().collect::<Vec<_>>().join(", ")
        ));
    };
    let mut cells_only = Vec::new();
    for c in only {
        match sensitivity::parse_cell(t, c) {
            Some(rc) => cells_only.push(rc),
            None => {
                return fail(format!(
                    "--only:1:1: expected a cell of table `{table}` (row letter A-{} and column 1-{}), found `{c}`",
                    (b'A' + t.kinds.len() as u8 - 1) as char,
                    t.kinds.len()
                ))
            }
        }
    }
    let mut cands = match sensitivity::corpus(paths) {
        Ok(c) => c,
        Err(e) => return fail(e.to_string()),
    };
    for lib in gen {
        let b = Bounds::new(lib, *gen_threads, *gen_nodes, *gen_calls);
        match sensitivity::generated(lib, &base, &b) {
            Ok(c) => cands.extend(c),
            Err(e) => return fail(format!("--gen:1:1: {lib}: {e}")),
        }
    }
    sensitivity::smallest_first(&mut cands);
    let suite = if *no_impls {
        Vec::new()
    } else if impls_dir.is_dir() {
        sensitivity::default_suite(impls_dir)
    } else {
        return fail(format!(
            "{}:0:0: expected a directory of implementation files (`--impls-dir`)",
            impls_dir.display()
        ));
    };
    let opts = CellOptions {
        table: table.clone(),
        sn_to: match sn_to {
            SnTo::Unordered => Cell::Unordered,
            SnTo::Ordered => Cell::Ordered,
        },
        only: cells_only,
        loop_bound: *loop_bound,
        partition,
    };
    let total = if opts.only.is_empty() { t.kinds.len() * t.kinds.len() } else { opts.only.len() };
    let total = (0..total).filter(|i| partition.contains(*i)).count();
    let bar =
        progress_bar(total as u64, *json, "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} cells (eta {eta}) {msg}");
    let tick = |c: &sensitivity::CellReport| {
        bar.set_message(format!("{}: {}", c.cell, c.score()));
        bar.inc(1);
    };
    let rep = sensitivity::cells(&base, &cands, &suite, &opts, &tick);
    bar.finish_and_clear();
    let rep = match rep {
        Ok(r) => r,
        Err(e) => return fail(format!("{src}:1:1: {e}")),
    };
    if let Some(path) = svg {
        let title = format!("Cell sensitivity of `{table}` ({src})");
        if let Err(e) = std::fs::write(path, sensitivity::heat_map_svg(&rep, &title)) {
            return fail(format!("{}:0:0: cannot write: {e}", path.display()));
        }
        if !json {
            eprintln!("wrote {}", path.display());
        }
    }
    // the options that define the run: every shard of it has the same (`mowgli merge`)
    let run = serde_json::json!({
        "paths": paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "stamp_order": stamp_order.as_ref().map(|p| p.display().to_string()), "table": table, "only": only,
        "sn_to": format!("{sn_to:?}"), "no_impls": no_impls, "impls_dir": impls_dir.display().to_string(),
        "gen": gen, "gen_threads": gen_threads, "gen_nodes": gen_nodes, "gen_calls": gen_calls,
        "loop_bound": loop_bound,
    });
    let doc =
        mowgli_check::analyses::merge::stamp(serde_json::to_value(&rep).unwrap_or_default(), "cells", partition, run);
    let decided = mowgli_check::analyses::merge::decide_cells(&doc);
    let errors: usize = rep.cells.iter().map(|c| c.errors.len()).sum::<usize>()
        + rep.candidate_errors.len()
        + rep.base_checks.iter().filter(|c| c.error.is_some()).count();
    if *json {
        return conclude(&decided, Some(doc));
    } else {
        for c in &rep.base_checks {
            println!(
                "base: {:32} {} ({} checked, {:.1} ms){}",
                c.check,
                if c.error.is_some() {
                    "error"
                } else if c.holds {
                    "holds"
                } else {
                    "REFUTED"
                },
                c.checked,
                c.millis,
                c.failure.as_ref().or(c.error.as_ref()).map(|f| format!(": {f}")).unwrap_or_default()
            );
        }
        for e in &rep.candidate_errors {
            println!("candidate left out: {e}");
        }
        print!("{}", sensitivity::render_summary(&rep));
        print_shard(partition, "cells");
        println!(
            "summary: table `{}`: {} cells flipped, {} change a test, {} break a check, {} change nothing; {} candidate tests, {} checks; {} errors; {:.1} ms",
            rep.table,
            rep.cells.len(),
            rep.cells.iter().filter(|c| !c.changed.is_empty()).count(),
            rep.cells.iter().filter(|c| !c.broken.is_empty()).count(),
            rep.cells.iter().filter(|c| c.score() == 0).count(),
            rep.candidates,
            rep.base_checks.len(),
            errors,
            rep.millis
        );
    }
    conclude(&decided, None)
}

fn generate(
    libs: &[String],
    args: &SuiteArgs,
    out: &Option<PathBuf>,
    (max_tests, jobs, partition): (Option<usize>, Option<usize>, Option<&str>),
    stamp_order: &Option<PathBuf>,
    json: bool,
) -> ExitCode {
    use mowgli_check::analyses::generate::{self, SuiteOptions, SuiteProgress};
    use mowgli_check::analyses::refine::gen::Partition;
    let order = match load_order(stamp_order) {
        Ok(o) => o,
        Err(e) => return input_error(json, e),
    };
    let partition = match partition.map(Partition::parse).transpose() {
        Ok(p) => p.unwrap_or(Partition::ALL),
        Err(e) => return input_error(json, format!("--partition: {e}")),
    };
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let model = match stamp_order {
        Some(p) => format!("the stamp order of {}", p.display()),
        None => "the default stamp order".to_string(),
    };
    let opts = SuiteOptions { libs: libs.to_vec(), bounds: args.bounds(2), max_tests, jobs, model, partition };
    let bar =
        progress_bar(0, json, "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} tests ({per_sec}, eta {eta}) {msg}");
    let on_progress = |p: SuiteProgress| match p {
        SuiteProgress::Class { library, size, distinct, to_run } => {
            bar.inc_length(to_run as u64);
            bar.set_message(format!("{library}, size {size}: {distinct} programs"));
        }
        SuiteProgress::Done => bar.inc(1),
    };
    if let Some(dir) = out {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return input_error(json, format!("{}: cannot create: {e}", dir.display()));
        }
    }
    // files that could not be written: an output error, not a limit
    let unwritten = std::sync::atomic::AtomicUsize::new(0);
    let sink = |t: generate::SuiteTest| match out {
        Some(dir) => generate::write_test(dir, &t).inspect_err(|_| {
            unwritten.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }),
        None => Ok(()),
    };
    let rep = match generate::generate_suite_with(&opts, &order, &on_progress, &sink) {
        Ok(x) => x,
        Err(e) => {
            bar.finish_and_clear();
            return input_error(json, e);
        }
    };
    bar.finish_and_clear();
    if let (Some(dir), false) = (out, json) {
        eprintln!("wrote {} tests to {}", rep.tests, dir.display());
    }
    // the options that define the run: every shard of it has the same (`mowgli merge`)
    let run = serde_json::json!({
        "libs": libs, "bounds": opts.bounds, "max_tests": max_tests,
        "stamp_order": stamp_order.as_ref().map(|p| p.display().to_string()),
    });
    let doc = mowgli_check::analyses::merge::stamp(
        serde_json::to_value(&rep).unwrap_or_default(),
        "generate",
        partition,
        run,
    );
    // generation checks nothing, so it has no counterexample: the suite covers the
    // bound, or --max-tests or programs whose outcomes could not be computed (a
    // size limit, e.g. too many values) left part of it out
    let unwritten = unwritten.load(std::sync::atomic::Ordering::SeqCst);
    let decided = mowgli_check::analyses::merge::decide_generate(&doc, unwritten);
    if json {
        conclude(&decided, Some(doc))
    } else {
        print!("{}", generate::render_report(&rep));
        print_shard(partition, "programs of the suite");
        conclude(&decided, None)
    }
}

fn explore_search(base: &str, variant: &str, paths: &[PathBuf], json: bool, args: &SearchArgs) -> ExitCode {
    use mowgli_check::analyses::explore::{self, Model, SearchOptions};
    use mowgli_check::analyses::refine::gen::Partition;
    if !paths.is_empty() {
        return input_error(json, "--search generates its programs: give no litmus paths");
    }
    let default = orders::default_order();
    let (b, v) = match (Model::parse(base, &default), Model::parse(variant, &default)) {
        (Ok(b), Ok(v)) => (b, v),
        (Err(e), _) | (_, Err(e)) => return input_error(json, e),
    };
    let lib = match &b {
        Model::Library(l) => l.clone(),
        Model::Order { .. } => args.lib.clone(),
    };
    let bounds = args.bounds.bounds(1).gen_bounds(&lib);
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let partition = match args.partition.as_deref().map(Partition::parse).transpose() {
        Ok(p) => p.unwrap_or(Partition::ALL),
        Err(e) => return input_error(json, format!("--partition: {e}")),
    };
    let opts = SearchOptions { library: args.lib.clone(), bounds, max: args.max, jobs, partition };
    let on_progress = |size: usize, n: usize| {
        if !json {
            eprintln!("size {size}: {n} programs");
        }
    };
    let rep = match explore::search(&b, &v, &default, &opts, &on_progress) {
        Ok(r) => r,
        Err(e) => return input_error(json, e),
    };
    let mut write_error = None;
    if let Some(dir) = &args.out {
        match explore::write_found(dir, &rep, matches!(b, Model::Library(_))) {
            Ok(files) if !json => {
                for f in files {
                    eprintln!("wrote {}", f.display());
                }
            }
            Ok(_) => {}
            Err(e) => write_error = Some(e),
        }
    }
    if let Some(e) = &write_error {
        eprintln!("{e}");
    }
    // the options that define the run: every shard of it has the same (`mowgli merge`)
    let run = serde_json::json!({
        "base": base, "variant": variant, "lib": args.lib, "bounds": args.bounds.bounds(1), "max": args.max,
    });
    let doc = mowgli_check::analyses::merge::stamp(
        serde_json::to_value(&rep).unwrap_or_default(),
        "explore-search",
        partition,
        run,
    );
    let decided = mowgli_check::analyses::merge::decide_explore_search(&doc, write_error.is_some());
    if json {
        return conclude(&decided, Some(doc));
    } else {
        for d in &rep.found {
            print_difference(
                &format!("{} ({} instructions)", d.name, d.size),
                (&rep.base, d.base_outcomes, &d.only_base),
                (&rep.variant, d.variant_outcomes, &d.only_variant),
            );
        }
        if let Some(d) = rep.found.first() {
            println!("smallest:\n{}", d.base_text);
        }
        for e in &rep.errors {
            println!("error: {e}");
        }
        print_shard(partition, "programs searched");
        let searched: Vec<String> = rep.classes.iter().map(|c| format!("{}: {}", c.size, c.checked)).collect();
        println!(
            "summary: {} vs {} over {}: {} programs run under both (per size {}), {} distinguishing{}; {:.1} ms",
            rep.base,
            rep.variant,
            rep.library,
            rep.checked,
            searched.join(", "),
            rep.found.len(),
            if rep.exhausted { " (every size up to the bounds searched)" } else { "" },
            rep.millis
        );
    }
    conclude(&decided, None)
}

/// `mowgli merge FILE...`: the report of the whole run from its shards' reports.
fn merge(files: &[PathBuf], json: bool, partial: bool) -> ExitCode {
    let mut inputs = Vec::new();
    for f in files {
        match std::fs::read_to_string(f) {
            Ok(t) => inputs.push((f.display().to_string(), t)),
            Err(e) => return input_error(json, format!("{}:0:0: cannot read: {e}", f.display())),
        }
    }
    match mowgli_check::analyses::merge::merge(&inputs, partial) {
        Ok((doc, decided)) => {
            if json {
                println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
            } else {
                print!("{}", mowgli_check::analyses::merge::render(&doc, files.len(), &decided));
            }
            decided.verdict.exit()
        }
        Err(e) => input_error(json, e),
    }
}
