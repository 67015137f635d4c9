//! `mowgli stamp-order`: print the stamp order in force as a stamp-order file.

use std::path::PathBuf;
use std::process::ExitCode;

use mowgli_check::analyses::verdict::Verdict;

use super::common::{input_error, load_order};

/// The arguments of `mowgli stamp-order`.
#[derive(clap::Args)]
pub struct Args {
    #[arg(long, value_name = "FILE")]
    pub stamp_order: Option<PathBuf>,
}

/// Prints the tables as a stamp-order file (no verdict line, so that the output
/// can be read back with `--stamp-order`).
pub fn run(a: Args) -> ExitCode {
    match load_order(&a.stamp_order) {
        Ok(o) => {
            for t in o.tables.values() {
                mowgli_check::outln!("{t}");
            }
            Verdict::Verified.exit()
        }
        Err(e) => input_error(false, e),
    }
}
