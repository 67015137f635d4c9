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

/// Runs `print` (which writes to stdout) with the progress display of the binary
/// out of the way, if one is drawn (see [`set_output_pause`]).
#[doc(hidden)]
pub fn paused(print: impl FnOnce()) {
    let mut once = Some(print);
    let mut run = || {
        if let Some(p) = once.take() {
            p()
        }
    };
    match PAUSE.read().ok().as_deref() {
        Some(Some(hook)) => hook(&mut run),
        _ => run(),
    }
}

/// How to print without drawing over a progress display: a function that hides
/// it, runs the printing, and draws it again.
pub type PauseHook = Box<dyn Fn(&mut dyn FnMut()) + Send + Sync>;

static PAUSE: std::sync::RwLock<Option<PauseHook>> = std::sync::RwLock::new(None);

/// Sets (or, with `None`, removes) the hook that [`outln!`] and [`out!`] print
/// through while a progress bar is drawn on the terminal.
pub fn set_output_pause(hook: Option<PauseHook>) {
    if let Ok(mut h) = PAUSE.write() {
        *h = hook;
    }
}

/// `println!` that does not panic when standard output is closed (`mowgli … |
/// head`): the run goes on quietly and ends with its verdict's exit code. A
/// progress bar on the terminal is hidden while it prints.
#[macro_export]
macro_rules! outln {
    ($($t:tt)*) => {{
        $crate::paused(|| {
            use std::io::Write as _;
            let _ = writeln!(std::io::stdout(), $($t)*);
        });
    }};
}

/// `print!` that does not panic when standard output is closed (see [`outln!`]).
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => {{
        $crate::paused(|| {
            use std::io::Write as _;
            let _ = write!(std::io::stdout(), $($t)*);
        });
    }};
}
