//! `mowgli trace`: a shortest run of RDMA^TSO's operational machine reaching an outcome.

use mowgli_libs::catalogue::Catalogue;
use std::process::ExitCode;

pub use mowgli_check::analyses::trace::TraceArgs as Args;

use super::common::{conclude, input_error, load_order};

pub fn run(args: Args, cat: &Catalogue) -> ExitCode {
    let order = match load_order(&args.stamp_order) {
        Ok(o) => o,
        Err(e) => return input_error(false, e),
    };
    let progress = super::progress::Progress::spinner("trace", "searching the machine's runs");
    let (text, decided) = mowgli_check::analyses::trace::run(&args, &order, cat);
    progress.finish();
    mowgli_check::out!("{text}");
    conclude(&decided, None)
}
