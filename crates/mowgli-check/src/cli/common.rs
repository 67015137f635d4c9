//! What every command shares: loading the stamp order and an implementation,
//! ending a run by its verdict, progress bars and shard banners.

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;
use std::process::ExitCode;

use mowgli_check::analyses::verdict::{Decided, Verdict};
use mowgli_core::StampOrder;
use mowgli_diag::Diagnostic;
use mowgli_libs::orders;

/// A number of seconds on the command line (`--time-limit 2.5`): finite, from 0
/// to 10⁹ (a duration must be one).
pub fn seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !v.is_finite() || !(0.0..=1e9).contains(&v) {
        return Err(format!("expected a number of seconds from 0 to 1e9, found `{s}`"));
    }
    Ok(v)
}

/// Most worker threads `--jobs` may ask for (each is an OS thread).
pub const MAX_JOBS: usize = 256;

/// A number of worker threads on the command line (`--jobs 4`): 1 to [`MAX_JOBS`].
pub fn jobs(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_JOBS).contains(&n) => Ok(n),
        _ => Err(format!("expected a number of worker threads from 1 to {MAX_JOBS}, found `{s}`")),
    }
}

/// `--partition K/N`, checked by the argument parser so that a bad one is shown at
/// its word of the command line (the commands parse it again from the text).
pub fn partition(s: &str) -> Result<String, String> {
    mowgli_check::analyses::refine::gen::Partition::parse(s).map(|_| s.to_string())
}

/// A command line the argument parser refused: help and version requests are
/// printed as the parser does; an error becomes a diagnostic at its word of the
/// command line (`<command line>:1:COLUMN: …`), then the verdict `error` (exit 2).
pub fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    let args: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    let json = args.iter().any(|a| a == "--json");
    let rendered = e.render().to_string();
    let first = rendered.lines().next().unwrap_or("invalid command line");
    let msg = first.strip_prefix("error: ").unwrap_or(first).to_string();
    let tip = rendered.lines().find_map(|l| l.trim().strip_prefix("tip: ")).map(str::to_string);
    let context = |k: ContextKind| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    // `--time-limit <S>`: the option's name is its first word
    let arg = context(ContextKind::InvalidArg).map(|a| a.split([' ', '=']).next().unwrap_or_default().to_string());
    let d = match (arg, context(ContextKind::InvalidValue)) {
        (Some(opt), Some(v)) if args.iter().any(|w| *w == opt || w.starts_with(&format!("{opt}="))) => {
            Diagnostic::command_line(&args, &opt, &v, msg)
        }
        (_, Some(v)) if !v.is_empty() => Diagnostic::command_line_word(&args, &v, msg),
        (Some(opt), _) => Diagnostic::command_line_word(&args, &opt, msg),
        _ => Diagnostic::command_line_word(&args, "", msg),
    };
    let d = match tip {
        Some(t) => d.with_help(t),
        None => d,
    };
    input_error(json, d)
}

/// A run that ends in `error` for a reason no input file holds (a bound with
/// nothing to check, an output that cannot be written): the reason on stderr as
/// a diagnostic at the first of `options` the command line gives (else the whole
/// command line). Nothing when the verdict is not `error`.
pub fn explain_error(d: &Decided, options: &[&str]) {
    if d.verdict != Verdict::Error {
        return;
    }
    let args: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    let given = |o: &str| args.iter().skip(1).any(|a| a == o || a.starts_with(&format!("{o}=")));
    let word = options.iter().copied().find(|o| given(o)).unwrap_or("");
    eprintln!("{}", Diagnostic::command_line_word(&args, word, d.why.clone()));
}

pub fn load_order(path: &Option<PathBuf>) -> Result<StampOrder, Diagnostic> {
    let order = orders::default_order();
    match path {
        Some(p) => mowgli_check::lang::stamporder::load(p, &order),
        None => Ok(order),
    }
}

/// The `--lib` files of this run (inputs of its `identity`, `mowgli merge`).
static LIB_FILES: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();

/// `--lib FILE…`: reads each library file and makes its library resolve by its
/// name for the rest of the run (replacing a built-in of the same name).
pub fn catalogue_of(files: &[PathBuf]) -> Result<Catalogue, Diagnostic> {
    let _ = LIB_FILES.set(files.to_vec());
    let mut cat = Catalogue::builtins();
    for f in files {
        add_lib(f, &mut cat)?;
    }
    Ok(cat)
}

/// The project file in force (docs/user-guide.md, "A project file"): `--project
/// FILE`, else the nearest `mowgli.toml` from the current folder upwards; none
/// with `--no-project`, or when there is none.
pub fn load_project(
    file: &Option<PathBuf>,
    no_project: bool,
) -> Result<Option<mowgli_check::lang::project::Project>, Diagnostic> {
    use mowgli_check::lang::project::{find, Project};
    let file = match file {
        Some(f) => f.clone(),
        None if no_project => return Ok(None),
        None => match std::env::current_dir().ok().and_then(|d| find(&d)) {
            Some(f) => f,
            None => return Ok(None),
        },
    };
    Project::load(&file).map(Some)
}

/// Reads one library file and adds its library to `cat` under its name; returns
/// the name.
pub fn add_lib(f: &std::path::Path, cat: &mut Catalogue) -> Result<String, Diagnostic> {
    let spec = mowgli_spec::parse_file(f)?;
    // built once now, so that a stamp missing from the default order is reported here
    let order = orders::default_order();
    spec.check_stamps(&order, &f.display().to_string())?;
    if let Err(e) = spec.library(&order) {
        return Err(Diagnostic::whole_file(f.display().to_string(), e));
    }
    cat.add_spec(&spec);
    Ok(spec.name)
}

/// The input files of a run that shards, each under the name of its option
/// (`files`, those given), then every `--lib` file, with their contents digests:
/// what its report's `identity` covers (`mowgli merge` compares them).
pub fn run_inputs(
    files: &[(&str, Option<&std::path::Path>)],
) -> Result<Vec<(mowgli_check::analyses::merge::Input, String)>, String> {
    use mowgli_check::analyses::merge::{digest, Input};
    let mut inputs: Vec<Input> = files.iter().filter_map(|(role, p)| p.map(|p| Input::new(role, p))).collect();
    inputs.extend(LIB_FILES.get().into_iter().flatten().map(|p| Input::new("lib", p)));
    digest::digests(&inputs)
}

/// The stamp order in force and the implementation file, or the diagnostic to print.
pub fn load_impl(
    implementation: &std::path::Path,
    stamp_order: &Option<PathBuf>,
    spec: &Option<String>,
    cat: &Catalogue,
) -> Result<(StampOrder, mowgli_check::lang::implementation::Implementation), Diagnostic> {
    let order = load_order(stamp_order)?;
    let mut imp = mowgli_check::lang::implementation::Implementation::load(implementation, &order, cat)?;
    if let Some(lib) = spec {
        imp.against(lib, &order).map_err(|e| {
            let args: Vec<String> = std::env::args().collect();
            let d = Diagnostic::command_line(&args, "--spec", lib, format!("--spec {lib}: {e}"));
            if cat.knows(lib) {
                d
            } else {
                let known = cat.known();
                d.with_label("unknown").suggesting(lib, known.iter().map(String::as_str))
            }
        })?;
    }
    Ok((order, imp))
}

/// Ends a run by its verdict: the human output's last line states it (`verdict:
/// WORD (why)`), or, with `--json`, the document gets the fields `verdict` and
/// `verdict_reason`; the exit status is the verdict's (see `mowgli_check::analyses::verdict`).
pub fn conclude(d: &Decided, json: Option<serde_json::Value>) -> ExitCode {
    match json {
        Some(doc) => mowgli_check::outln!("{}", serde_json::to_string_pretty(&d.into_json(doc)).unwrap_or_default()),
        None => mowgli_check::outln!("{}", d.line()),
    }
    d.verdict.exit()
}

/// An input that cannot be read or is malformed (or an output that cannot be
/// written): the message on stderr, then the verdict `error`. In JSON the error
/// is a string, or for a [`Diagnostic`] its fields (`file`, `line`, `column`, …).
pub fn input_error(json: bool, msg: impl std::fmt::Display + serde::Serialize) -> ExitCode {
    let text = msg.to_string();
    if let Some(d) = on_command_line(&text) {
        eprintln!("{d}");
        let decided = Decided::new(Verdict::Error, d.headline());
        return conclude(&decided, json.then(|| serde_json::json!({ "errors": [d] })));
    }
    eprintln!("{text}");
    let d = Decided::new(Verdict::Error, text.lines().next().unwrap_or_default());
    conclude(&d, json.then(|| serde_json::json!({ "errors": [msg] })))
}

/// An error about a whole file (`FILE:0:0: …`: it does not exist, cannot be
/// read) that the command line names: the same error at that word of the
/// command line, where the file has no line to show.
fn on_command_line(text: &str) -> Option<Diagnostic> {
    let first = text.lines().next()?;
    let (file, msg) = first.split_once(":0:0: ")?;
    let args: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    let named = |a: &String| a == file || a.rsplit_once('=').is_some_and(|(_, v)| v == file);
    if file.is_empty() || !args.iter().skip(1).any(named) {
        return None;
    }
    Some(Diagnostic::command_line_word(&args, file, format!("{file}: {msg}")))
}

/// For the human report of a shard: which part of the run it covers.
pub fn print_shard(partition: mowgli_check::analyses::refine::gen::Partition, what: &str) {
    if partition.count > 1 {
        mowgli_check::outln!(
            "partition {}/{}: the {what} whose index is {} modulo {} (`mowgli merge` combines the shards' --json reports)",
            partition.index,
            partition.count,
            partition.index - 1,
            partition.count
        );
    }
}

/// Bounds of generated litmus programs (`mowgli generate`, `mowgli explore --search`).
#[derive(clap::Args, Clone, Debug)]
pub struct SuiteArgs {
    /// Threads (at most).
    #[arg(long, value_name = "T", default_value_t = 2)]
    pub threads: usize,
    /// Threads (at least; default 2 for `generate`, 1 for `explore --search`).
    #[arg(long, value_name = "T")]
    pub min_threads: Option<usize>,
    /// Nodes (at most).
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub nodes: usize,
    /// Instructions per thread (at most).
    #[arg(long, value_name = "I", default_value_t = 3)]
    pub instrs: usize,
    /// Locations (at most).
    #[arg(long, value_name = "L", default_value_t = 2)]
    pub locs: usize,
    /// Values 1..=V written by the programs (0 is every location's initial value).
    #[arg(long, value_name = "V", default_value_t = 1)]
    pub values: usize,
}

impl SuiteArgs {
    /// The bounds, each within what the generator enumerates (at least 1
    /// thread, node and instruction; at most 8 threads and nodes, 16
    /// instructions, 8 values, 6 locations): a bound outside is an input error
    /// at its option.
    pub fn checked(&self, min_threads: usize) -> Result<mowgli_check::analyses::generate::SuiteBounds, Diagnostic> {
        let b = self.bounds(min_threads);
        let ranges = [
            ("--threads", b.threads, 1, 8),
            ("--nodes", b.nodes, 1, 8),
            ("--instrs", b.instrs, 1, 16),
            ("--values", b.values, 0, 8),
            ("--locs", b.locs, 0, 6),
        ];
        for (option, value, lo, hi) in ranges {
            if value < lo || value > hi {
                let why = format!("`{option}` must be between {lo} and {hi} (the generator's bounds), not {value}");
                return Err(Diagnostic::on_option(option, &value.to_string(), why));
            }
        }
        if b.min_threads > b.threads {
            let why = format!("at least {} threads asked (`--min-threads`), but at most {}", b.min_threads, b.threads);
            return Err(match self.min_threads {
                Some(m) => Diagnostic::on_option("--min-threads", &m.to_string(), why),
                // the default least count is the command's: the maximum given is the culprit
                None => Diagnostic::on_option("--threads", &b.threads.to_string(), why + " by default"),
            });
        }
        Ok(b)
    }

    pub fn bounds(&self, min_threads: usize) -> mowgli_check::analyses::generate::SuiteBounds {
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

/// The shape of generated clients (`refine`) and abstract programs
/// (`obligations`): how many threads, nodes, locations, values, work identifiers.
#[derive(clap::Args, Clone, Debug)]
#[command(next_help_heading = "Bounds")]
pub struct ShapeArgs {
    /// Threads (at most).
    #[arg(long, value_name = "T", default_value_t = 2)]
    pub threads: usize,
    /// Nodes (at most; default: as many as threads).
    #[arg(long, value_name = "N")]
    pub nodes: Option<usize>,
    /// Locations of the implemented library (at most; default from its declaration:
    /// 0 when no method takes one, 1 for replicated memory, 2 otherwise).
    #[arg(long, value_name = "L")]
    pub locs: Option<usize>,
    /// Values 1..=V for value arguments, tuple components and messages (default 2
    /// when locations hold tuples, so that a torn tuple can show; 1 otherwise).
    #[arg(long, value_name = "V")]
    pub values: Option<usize>,
    /// Work identifiers per thread besides `_`.
    #[arg(long, value_name = "W", default_value_t = 1)]
    pub wids: usize,
    /// Size K of msw locations (`loc x @ n size K`).
    #[arg(long, value_name = "K", default_value_t = 2)]
    pub tuple_size: usize,
}

impl ShapeArgs {
    /// [`ShapeArgs::bounds`], each bound within what the generator enumerates
    /// (1 to 8 threads and nodes, 1 to 16 calls, at most 8 values, 6 locations,
    /// 6 work identifiers, tuples of 8): a bound outside is an input error at
    /// its option (`calls`: the option that gave the calls, and their number).
    pub fn checked(
        &self,
        lib: &str,
        cat: &Catalogue,
        (calls_option, calls): (&str, usize),
    ) -> Result<mowgli_check::analyses::refine::gen::Bounds, Diagnostic> {
        let ranges = [
            ("--threads", Some(self.threads), 1, 8),
            ("--nodes", self.nodes, 1, 8),
            (calls_option, Some(calls), 1, 16),
            ("--values", self.values, 0, 8),
            ("--locs", self.locs, 0, 6),
            ("--wids", Some(self.wids), 0, 6),
            ("--tuple-size", Some(self.tuple_size), 0, 8),
        ];
        for (option, value, lo, hi) in ranges {
            if let Some(v) = value.filter(|v| *v < lo || *v > hi) {
                let why = format!("`{option}` must be between {lo} and {hi} (the generator's bounds), not {v}");
                return Err(Diagnostic::on_option(option, &v.to_string(), why));
            }
        }
        Ok(self.bounds(lib, cat, calls))
    }

    /// The generator's bounds for library `lib` with `calls` calls per thread.
    pub fn bounds(&self, lib: &str, cat: &Catalogue, calls: usize) -> mowgli_check::analyses::refine::gen::Bounds {
        let mut b = mowgli_check::analyses::refine::gen::Bounds::in_catalogue(
            lib,
            cat,
            self.threads,
            self.nodes.unwrap_or(self.threads),
            calls,
        );
        if let Some(l) = self.locs {
            b.locs = l;
        }
        if let Some(v) = self.values {
            b.values = v;
        }
        b.wids = self.wids;
        b.tuple_size = self.tuple_size;
        b
    }

    /// The options as a run's identity records them (`mowgli merge`).
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "threads": self.threads, "nodes": self.nodes, "locs": self.locs,
            "values": self.values, "wids": self.wids, "tuple_size": self.tuple_size,
        })
    }
}

/// The HTML report of a run (`--html DIR`): titled by the command line, with the
/// run's verdict, its summary line and one section per test, client or obligation.
pub fn html_page(
    decided: &Decided,
    summary: String,
    sections: Vec<mowgli_draw::html::Section>,
) -> mowgli_draw::html::Page {
    use mowgli_draw::html::{Page, Tone};
    let args: Vec<String> = std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    let verdict_tone = match decided.verdict {
        Verdict::Verified => Tone::Pass,
        Verdict::Counterexample | Verdict::Error => Tone::Fail,
        _ => Tone::Other,
    };
    Page {
        title: format!("mowgli {}", args.join(" ")),
        verdict: decided.verdict.word().to_string(),
        verdict_reason: decided.why.clone(),
        verdict_tone,
        summary,
        sections,
    }
}

/// Writes the page as `DIR/index.html` (saying so on stderr); a diagnostic at
/// the file when it cannot be written.
pub fn write_html(dir: &std::path::Path, page: &mowgli_draw::html::Page) -> Result<(), Diagnostic> {
    match mowgli_draw::html::write(dir, page) {
        Ok(p) => {
            eprintln!("wrote {}", p.display());
            Ok(())
        }
        Err(e) => Err(Diagnostic::output(&dir.join("index.html"), format!("cannot write: {e}"))),
    }
}
