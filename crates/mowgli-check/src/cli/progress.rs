//! Progress on stderr for every command that can run longer than a second (issue
//! 32, item 5). Nothing is shown during the first second, so short runs stay
//! silent. After it: an indicatif bar (or spinner, when the total is not known)
//! redrawn in place when stderr is a terminal; otherwise (a CI log, a file) one
//! plain line then, and one every [`PLAIN_EVERY`] after. `--quiet` turns it off.
//! Progress never goes to stdout, so `--json` output stays one document; what
//! the run prints meanwhile (`mowgli_check::outln!`) hides the bar while it prints.

use std::borrow::Cow;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run goes before its progress is shown.
pub const FIRST_AFTER: Duration = Duration::from_secs(1);
/// How often a plain progress line is printed when stderr is not a terminal.
pub const PLAIN_EVERY: Duration = Duration::from_secs(5);

static QUIET: AtomicBool = AtomicBool::new(false);

/// `--quiet`: no progress for the rest of the run.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::SeqCst);
}

/// Whether `--quiet` was given.
pub fn quiet() -> bool {
    QUIET.load(Ordering::SeqCst)
}

/// The progress of one run: counts `what` (e.g. "clients") up to a total that may
/// grow (`inc_length`) or be unknown (`None`: a spinner with the elapsed time and
/// the message). Dropping it stops it and clears the bar.
pub struct Progress {
    bar: ProgressBar,
    ticker: Option<(Sender<()>, JoinHandle<()>)>,
}

impl Progress {
    /// Progress of `mowgli COMMAND`, counting `what`, with `len` items if known.
    pub fn new(command: &str, what: &str, len: Option<u64>) -> Progress {
        let bar = match len {
            Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::hidden()),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden()),
        };
        let template = match len {
            Some(_) => {
                format!("{{spinner}} [{{elapsed_precise}}] {{bar:40}} {{pos}}/{{len}} {what} (eta {{eta}}) {{msg}}")
            }
            None => format!("{{spinner}} [{{elapsed_precise}}] mowgli {command} {{msg}}"),
        };
        bar.set_style(ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()));
        if quiet() {
            return Progress { bar, ticker: None };
        }
        let (tx, rx) = channel::<()>();
        let (shown, command, what) = (bar.clone(), command.to_string(), what.to_string());
        let terminal = std::io::stderr().is_terminal();
        let handle = std::thread::spawn(move || {
            if rx.recv_timeout(FIRST_AFTER) != Err(RecvTimeoutError::Timeout) {
                return;
            }
            if terminal {
                let bar = shown.clone();
                mowgli_check::set_output_pause(Some(Box::new(move |print| bar.suspend(print))));
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(120));
                let _ = rx.recv();
                return;
            }
            loop {
                eprintln!("{}", plain_line(&shown, &command, &what));
                if rx.recv_timeout(PLAIN_EVERY) != Err(RecvTimeoutError::Timeout) {
                    return;
                }
            }
        });
        Progress { bar, ticker: Some((tx, handle)) }
    }

    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
    }

    pub fn inc_length(&self, n: u64) {
        self.bar.inc_length(n);
    }

    pub fn set_message(&self, msg: impl Into<Cow<'static, str>>) {
        self.bar.set_message(msg);
    }

    /// The bar itself, to move into callbacks that other threads call (its
    /// methods are thread-safe); it stays hidden until the first second is over.
    pub fn bar(&self) -> ProgressBar {
        self.bar.clone()
    }

    /// A line on stderr (part of the command's own output), with the bar out of
    /// the way.
    pub fn note(&self, line: &str) {
        self.bar.suspend(|| eprintln!("{line}"));
    }

    /// A spinner for a run whose steps are not counted: `mowgli COMMAND MESSAGE`
    /// and the elapsed time.
    pub fn spinner(command: &str, message: &str) -> Progress {
        let p = Progress::new(command, "", None);
        p.set_message(message.to_string());
        p
    }

    /// Stops the progress and clears it (before the report is printed).
    pub fn finish(self) {}
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some((tx, handle)) = self.ticker.take() {
            drop(tx);
            let _ = handle.join();
            mowgli_check::set_output_pause(None);
        }
        self.bar.finish_and_clear();
    }
}

/// `mowgli COMMAND: POS/LEN WHAT, MSG (S s)`, the line of a log.
fn plain_line(bar: &ProgressBar, command: &str, what: &str) -> String {
    let count = match bar.length() {
        Some(n) => format!(" {}/{n} {what}", bar.position()),
        None if bar.position() > 0 => format!(" {} {what}", bar.position()),
        None => String::new(),
    };
    let msg = bar.message();
    let sep = if !count.is_empty() && !msg.is_empty() { "," } else { "" };
    format!("mowgli {command}:{count}{sep} {msg} ({:.0} s)", bar.elapsed().as_secs_f64()).replace("  (", " (")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines() {
        let bar = ProgressBar::with_draw_target(Some(10), ProgressDrawTarget::hidden());
        bar.inc(3);
        assert_eq!(plain_line(&bar, "refine", "clients"), "mowgli refine: 3/10 clients (0 s)");
        bar.set_message("size 2");
        assert_eq!(plain_line(&bar, "refine", "clients"), "mowgli refine: 3/10 clients, size 2 (0 s)");
        let spin = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        spin.set_message("rule R1");
        assert_eq!(plain_line(&spin, "pivot", "rows"), "mowgli pivot: rule R1 (0 s)");
    }
}
