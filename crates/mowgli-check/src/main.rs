//! The `mowgli` command-line tool: parses the command line and hands each command
//! to its file in `cli/`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

/// The allocator: the checks allocate and free many small vectors and maps per
/// candidate; mimalloc serves those faster than the system allocator (measured in
/// docs/user-guide.md, "How fast"), and its version 2 faster than its version 3
/// (the crate's default) on them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "mowgli", version, about = "Checks concurrent libraries over RDMA with the Mowgli framework")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
    /// A library file (`specs/libs/NAME.lib`, docs/spec-language.md), usable
    /// by its name wherever a library is named; one with a built-in's name
    /// replaces it for this run. Repeatable.
    #[arg(long = "lib", value_name = "FILE", global = true)]
    lib_files: Vec<std::path::PathBuf>,
    /// The project file (default: the nearest `mowgli.toml` from the current
    /// folder upwards): its library files are in force, before `--lib` ones.
    #[arg(long, value_name = "FILE", global = true)]
    project: Option<std::path::PathBuf>,
    /// Read no project file.
    #[arg(long, global = true, conflicts_with = "project")]
    no_project: bool,
    /// No progress on stderr (shown after a second: a bar on a terminal, a line
    /// every 5 s otherwise); `litmus` also prints only the tests that do not pass.
    #[arg(long, short, global = true)]
    quiet: bool,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run litmus tests: print every reachable outcome and check each expectation.
    Litmus(cli::litmus::Args),
    /// A shortest run of RDMA^TSO's operational machine reaching an outcome, step by
    /// step, with the execution graph it builds (docs/user-guide.md, "mowgli trace").
    Trace(cli::trace::Args),
    /// Bounded refinement (LOCO Def. 3.10): every outcome of the implementation on a
    /// client must be an outcome of the specification.
    Refine(Box<cli::refine::Args>),
    /// Local-soundness proof obligations (LOCO Def. 3.13) of an implementation,
    /// checked on every abstract execution up to a bound.
    Obligations(Box<cli::obligations::Args>),
    /// Compare two models on a corpus: every litmus test whose outcome set differs,
    /// with the outcomes only one side allows.
    Explore(Box<cli::explore::Args>),
    /// Bounded-exhaustive litmus generation: every program over the libraries up to
    /// the bounds, one per renaming class, written with all its outcomes as expectations.
    Generate(cli::generate::Args),
    /// Cell sensitivity of a stamp-order table: flip every cell (✓ ↔ ✗, SN → ✗) and
    /// report the litmus tests whose outcomes change and the implementation checks
    /// that stop holding; draw the table as an SVG heat map. Implementation checks
    /// (docs/sensitivity.md): obligations of isv 2×2×1, ibal, ibal_all, irbl 2×2×2,
    /// imsw 2×2×1; refinement on generated clients of isv, ibal, ibal_all, irbl
    /// 2×2×2, imsw and iw 2×2×1 (threads × nodes × calls per thread).
    Cells(Box<cli::cells::Args>),
    /// Axiom sensitivity of a library file: drop each named axiom in turn and report
    /// the corpus tests and smallest generated programs it changes, and the
    /// implementations (`--impl`) that stop being correct (docs/sensitivity.md).
    Axioms(Box<cli::axioms::Args>),
    /// Combine the `--json` reports of the shards 1..N of one run (`--partition K/N`
    /// of refine --calls, obligations, generate, explore --search, cells) into the
    /// report of the whole run, with its verdict.
    Merge(cli::merge::Args),
    /// Robustness (robustness paper Def. 5): is every consistent execution
    /// SC-consistent? With the syntactic conditions (LDRF, fenced, tree-fenced).
    Robust(cli::robust::Args),
    /// coreRMA pivot generation (coreRMA paper §6.1, Table 6): per rule of its Fig. 4,
    /// every program up to a size bound with an outcome that needs the rule.
    Pivot(cli::pivot::Args),
    /// Run the project's checks (every entry of `mowgli.toml`: litmus suites,
    /// refinement and obligations of implementations and their mutants), each
    /// against its expected verdict; `--junit FILE` for CI (docs/user-guide.md,
    /// "A project file").
    Check(Box<cli::check::Args>),
    /// Print the stamp order in force (LOCO Fig. 10 and RDMA Fig. 9 by default).
    StampOrder(cli::stamp_order::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => return cli::common::usage_error(e),
    };
    let project = match cli::common::load_project(&cli.project, cli.no_project) {
        Ok(p) => p,
        Err(d) => return cli::common::input_error(false, d),
    };
    // the project's library files first: a `--lib` file of the same name wins
    let mut libs = project.as_ref().map(|p| p.libraries.clone()).unwrap_or_default();
    libs.extend(cli.lib_files);
    cli::progress::set_quiet(cli.quiet);
    let cat = &match cli::common::catalogue_of(&libs) {
        Ok(c) => c,
        Err(d) => return cli::common::input_error(false, d),
    };
    match cli.cmd {
        Cmd::Check(a) => cli::check::run(*a, project, cat),
        Cmd::Litmus(a) => cli::litmus::run(a, cat),
        Cmd::Trace(a) => cli::trace::run(a, cat),
        Cmd::Refine(a) => cli::refine::run(*a, cat),
        Cmd::Obligations(a) => cli::obligations::run(&a, cat),
        Cmd::Explore(a) => cli::explore::run(*a, cat),
        Cmd::Generate(a) => cli::generate::run(a, cat),
        Cmd::Cells(a) => cli::cells::run(&a, cat),
        Cmd::Axioms(a) => cli::axioms::run(&a, cat),
        Cmd::Merge(a) => cli::merge::run(a),
        Cmd::Robust(a) => cli::robust::run(a, cat),
        Cmd::Pivot(a) => cli::pivot::run(a),
        Cmd::StampOrder(a) => cli::stamp_order::run(a),
    }
}
