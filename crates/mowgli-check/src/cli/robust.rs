//! `mowgli robust`: robustness against SC (robustness paper Def. 5), its syntactic
//! conditions and fence synthesis.

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;
use std::process::ExitCode;

use super::common::{conclude, input_error, load_order};
use super::progress::Progress;

/// The arguments of `mowgli robust`.
/// `--model`: refused at its word of the command line when it names no model (a
/// fuzz case of the s33 `.ci/run` found the error shown without a position).
fn model_name(s: &str) -> Result<String, String> {
    match mowgli_check::analyses::robust::Model::parse(s) {
        Some(_) => Ok(s.to_string()),
        None => Err("expected `rdmasc` or `rdmatso`".into()),
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// Litmus files or directories over `rdmatso` or `rdmasc`.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The model: `rdmasc` (RDMA^sc) or `rdmatso` (RDMA^TSO); default: the test's library.
    #[arg(long, value_name = "MODEL", value_parser = model_name)]
    pub model: Option<String>,
    /// Machine-readable output (one JSON document).
    #[arg(long)]
    pub json: bool,
    /// Write the non-SC execution of every non-robust test as `DIR/TEST.dot`.
    #[arg(long, value_name = "DIR")]
    pub dot: Option<PathBuf>,
    /// Fence synthesis: a smallest set of polls, rfences (mfences under TSO) making
    /// the test LDRF ∧ fenced, and one making it robust by the exact check.
    #[arg(long)]
    pub fix: bool,
    /// Only the syntactic conditions (no exact check): robust when LDRF ∧ fenced.
    #[arg(long, conflicts_with = "fix")]
    pub syntactic: bool,
    /// The single-server translation (robustness paper §5.3) of shared-memory tests
    /// (`Read`/`Write`), checked tree-fenced, LDRF, robust and with the original's SC
    /// outcomes; printed, or written as `DIR/TEST-star.litmus` with `--out DIR`.
    #[arg(long, conflicts_with_all = ["fix", "syntactic"])]
    pub to_star: bool,
    /// Write the programs made: with `--fix`, the fixed programs as
    /// `DIR/TEST-fixed-{syntactic,exact}.litmus`; with `--to-star`, the translations
    /// as `DIR/TEST-star.litmus`. `--fix-out` and `--star-out` are older spellings.
    #[arg(long, value_name = "DIR", visible_aliases = ["fix-out", "star-out"])]
    pub out: Option<PathBuf>,
    /// Run under another stamp order.
    #[arg(long, value_name = "FILE")]
    pub stamp_order: Option<PathBuf>,
    /// Iterations a loop that is no spin or retry loop is unrolled to; a test whose
    /// loop reaches it is robust only on the runs within it: `inconclusive` (exit 3)
    /// unless a non-SC execution is found.
    #[arg(long, value_name = "N", default_value_t = mowgli_check::lang::lower::LOOP_BOUND,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1000))]
    pub loop_bound: usize,
}

pub fn run(a: Args, cat: &Catalogue) -> ExitCode {
    let Args { paths, model, json, dot, fix, out, syntactic, to_star, stamp_order, loop_bound } = a;
    if out.is_some() && !fix && !to_star {
        let args: Vec<String> = std::env::args().collect();
        let word = ["--out", "--fix-out", "--star-out"]
            .into_iter()
            .find_map(|o| args.iter().find(|a| *a == o || a.starts_with(&format!("{o}="))).cloned())
            .unwrap_or_else(|| "--out".into());
        let msg = "the programs written are those of `--fix` or `--to-star`; give one of them";
        return input_error(json, mowgli_diag::Diagnostic::command_line_word(&args, &word, msg));
    }
    match load_order(&stamp_order) {
        Ok(order) if to_star => {
            let progress = Progress::spinner("robust", "translating to a single server");
            let (d, doc) = mowgli_check::analyses::robust::star_cli(&paths, json, out.as_deref(), &order, cat);
            progress.finish();
            conclude(&d, doc)
        }
        Ok(order) => {
            let fix = fix.then_some(out.as_deref());
            let progress = Progress::spinner("robust", "checking robustness");
            let (d, doc) = mowgli_check::analyses::robust::cli(
                &paths,
                model.as_deref(),
                mowgli_check::analyses::robust::Outputs { json, dot: dot.as_deref(), fix_out: fix },
                !syntactic,
                &order,
                cat,
                loop_bound,
            );
            progress.finish();
            conclude(&d, doc)
        }
        Err(e) => input_error(json, e),
    }
}
