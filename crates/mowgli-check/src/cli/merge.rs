//! `mowgli merge`: the report of a whole run from its shards' `--json` reports.

use std::path::PathBuf;
use std::process::ExitCode;

use super::common::input_error;

/// The arguments of `mowgli merge`.
#[derive(clap::Args)]
pub struct Args {
    /// The shards' JSON reports (e.g. `shard-*.json`), in any order.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print the merged JSON report (what the unsharded run prints with `--json`).
    #[arg(long)]
    pub json: bool,
    /// Merge the shards given even if some are missing: the report lists the
    /// missing ones and the verdict is at best `inconclusive` (exit 3).
    #[arg(long)]
    pub partial: bool,
}

pub fn run(a: Args) -> ExitCode {
    merge(&a.files, a.json, a.partial)
}

/// `mowgli merge FILE...`: the report of the whole run from its shards' reports.
fn merge(files: &[PathBuf], json: bool, partial: bool) -> ExitCode {
    let mut inputs = Vec::new();
    for f in files {
        match mowgli_diag::read_source(f, &f.display().to_string()) {
            Ok(t) => inputs.push((f.display().to_string(), t)),
            Err(d) => return input_error(json, d),
        }
    }
    match mowgli_check::analyses::merge::merge(&inputs, partial) {
        Ok((doc, decided)) => {
            if json {
                mowgli_check::outln!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
            } else {
                mowgli_check::out!("{}", mowgli_check::analyses::merge::render(&doc, files.len(), &decided));
            }
            decided.verdict.exit()
        }
        // an error about the shards as a whole: shown in the command line
        Err(d) if d.file.is_empty() => {
            let args: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
            input_error(json, mowgli_diag::Diagnostic::command_line_word(&args, "", d.msg.clone()))
        }
        Err(d) => input_error(json, d),
    }
}
