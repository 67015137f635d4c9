//! # mowgli-check
//!
//! Mowgli's languages, engines and analyses, in three layers (the `mowgli` binary,
//! `src/main.rs` and `src/cli/`, is the fourth, on top):
//!
//! - [`lang`]: the source languages — one lexer for litmus bodies and
//!   implementation files, the litmus, `.impl`, herd7-x86 and stamp-order parsers,
//!   the printers, and the lowering of a parsed test to an engine problem;
//! - [`engines`]: the engines behind one problem type — the explicit enumeration
//!   engine, the Z3 witness search, and the operational RDMA^TSO machines;
//! - [`analyses`]: what the commands compute over those — the litmus runner,
//!   refinement, local-soundness obligations, explore, generate, cells, robustness,
//!   traces, report merging, and the one verdict type.
//!
//! Arrows point down only: `analyses` → `engines`, `lang`; `lang` → `engines`
//! (lowering targets the engine's problem); `engines` → neither. `tests/layering.rs`
//! checks it from the `use` lines.

pub mod analyses;
pub mod engines;
pub mod lang;

/// `println!` that does not panic when standard output is closed (`mowgli … |
/// head`): the run goes on quietly and ends with its verdict's exit code.
#[macro_export]
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

/// `print!` that does not panic when standard output is closed (see [`outln!`]).
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($t)*);
    }};
}
