//! The contract every input must keep (issue 32): `mowgli` ends by itself within
//! a time limit, with exit status 0 to 3, without a panic, a stack overflow or an
//! abort on memory; and an error exit (2) names `file:line:column` of the bad
//! input, with the source line and a caret under a column inside it.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Where the child's standard output goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stdout {
    /// Discarded.
    Null,
    /// `/dev/full`: every write fails with "no space left".
    Full,
    /// A pipe whose reading end is closed: every write fails with a broken pipe.
    Closed,
}

/// What a run did.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stderr: String,
    pub secs: f64,
    pub timed_out: bool,
}

/// Address space a run may take (KiB): an input that would exhaust the memory
/// makes the allocator fail, which `mowgli` must never reach.
const MEMORY_KIB: u64 = 3_000_000;

/// The processor time (user and system, every thread) process `pid` has used so
/// far, from `/proc/PID/stat` (`None` where it cannot be read).
fn cpu_time(pid: u32, tick: f64) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // the fields after the command name (which may hold spaces), from field 3 on:
    // utime and stime are fields 14 and 15
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(Duration::from_secs_f64(ticks / tick))
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 when it cannot be asked).
fn clock_tick() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

/// Runs `mowgli args` in `cwd` under the memory limit, killing it once it has run
/// `limit` and used at least half of `limit` of processor time (a run that a busy
/// machine leaves waiting is not a hang: a campaign beside other jobs found two
/// runs of about 2.8 s past 20 s), or after five times `limit` whatever it used.
pub fn run(bin: &str, cwd: &Path, args: &[String], stdout: Stdout, limit: Duration) -> Run {
    let tick = clock_tick();
    // the shell sets the limit, then becomes mowgli
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(format!("ulimit -v {MEMORY_KIB} && exec \"$0\" \"$@\"")).arg(bin).args(args);
    cmd.current_dir(cwd).stdin(Stdio::null()).stderr(Stdio::piped());
    match stdout {
        Stdout::Null => {
            cmd.stdout(Stdio::null());
        }
        Stdout::Full => {
            cmd.stdout(std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full"));
        }
        Stdout::Closed => {
            cmd.stdout(Stdio::piped());
        }
    }
    let start = Instant::now();
    let mut child = cmd.spawn().expect("mowgli starts");
    if stdout == Stdout::Closed {
        drop(child.stdout.take()); // the reading end, closed
    }
    let mut err = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err.read_to_end(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    });
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().expect("waits") {
            break s;
        }
        let wall = start.elapsed();
        let busy = || cpu_time(child.id(), tick).is_none_or(|c| c >= limit / 2);
        if wall > 5 * limit || (wall > limit && busy()) {
            timed_out = true;
            let _ = child.kill();
            break child.wait().expect("waits");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let secs = start.elapsed().as_secs_f64();
    let stderr = reader.join().unwrap_or_default();
    Run { code: status.code(), stderr, secs, timed_out }
}

/// The broken parts of the contract in `r`, a run in `cwd` (empty: kept).
pub fn violations(r: &Run, cwd: &Path) -> Vec<String> {
    let mut v = Vec::new();
    if r.timed_out {
        v.push(format!("no end after {:.0} s", r.secs));
    } else {
        match r.code {
            None => v.push("killed by a signal".into()),
            Some(c) if !(0..=3).contains(&c) => v.push(format!("exit status {c}")),
            _ => {}
        }
    }
    for (bad, what) in [
        ("panicked", "a panic"),
        ("has overflowed its stack", "a stack overflow"),
        ("memory allocation of", "an abort on memory"),
    ] {
        if r.stderr.contains(bad) {
            v.push(what.into());
        }
    }
    if r.code == Some(2) {
        if let Err(e) = located(&r.stderr, cwd) {
            v.push(e);
        }
    }
    v
}

/// `FILE:LINE:COLUMN: ` at the start of `line`: (file, line, column).
fn headline(line: &str) -> Option<(&str, usize, usize)> {
    // a file name may contain `:`: the first `:DIGITS:DIGITS: ` ends it
    line.match_indices(':').find_map(|(i, _)| {
        let mut parts = line[i + 1..].splitn(3, ':');
        let l = parts.next()?.parse().ok()?;
        let c = parts.next()?.parse().ok()?;
        parts.next().filter(|rest| rest.starts_with(' '))?;
        Some((&line[..i], l, c))
    })
}

/// Whether the first diagnostic of `stderr` (run in `cwd`) names
/// `file:line:column` (from 1, or `0:0` for a file that cannot be read at all)
/// and shows the source line, with the column inside the line or just past it.
pub fn located(stderr: &str, cwd: &Path) -> Result<(), String> {
    // the first diagnostic (lines such as `wrote FILE` may come before it)
    let Some((first, (file, line, col))) = stderr.lines().find_map(|l| headline(l).map(|h| (l, h))) else {
        return Err(format!("no file:line:column in `{}`", stderr.lines().next().unwrap_or_default()));
    };
    if line == 0 && col == 0 && first.contains("cannot read") {
        return Ok(());
    }
    if line == 0 || col == 0 {
        return Err(format!("position {line}:{col} in `{first}`"));
    }
    if !stderr.contains(&format!(",-[ {file}:{line}:{col} ]")) {
        return Err(format!("no source line shown for `{first}`"));
    }
    // the line as the file has it (a command line or an option's text: as shown)
    let text = std::fs::read(cwd.join(file)).ok().map(|b| String::from_utf8_lossy(&b).into_owned());
    let src: String = match &text {
        Some(t) => t.lines().nth(line - 1).unwrap_or_default().trim_end_matches('\r').to_string(),
        None => {
            let mark = format!("{line} |");
            let shown = stderr.lines().find_map(|l| l.trim_start().strip_prefix(&mark));
            shown.map(|s| s.strip_prefix(' ').unwrap_or(s).to_string()).unwrap_or_default()
        }
    };
    let len = src.chars().count();
    if col > len + 1 {
        return Err(format!("column {col} past the end of line {line} ({len} characters) in `{first}`"));
    }
    Ok(())
}
