//! The commands the documentation shows with their output run, and give that
//! output (issue 32, item 1). Every ```console block of README.md and docs/*.md is
//! a session: `$ mowgli ARGS` (or `$ cargo run --release -- ARGS`) lines, each
//! followed by an excerpt of its output. The command runs with the built binary
//! from a scratch folder that sees the repository's `specs/` (so the files a
//! command is asked to write land there), and:
//!
//! - its exit status is the one of the `verdict: WORD` line shown (0 when no
//!   verdict is shown and no `# exit N` comment ends the command line);
//! - every line shown appears in its output (stdout, then stderr), in order; a line
//!   that is `…` stands for lines left out, and `…` inside a line for a part left
//!   out; durations (`12.5 ms`, `3 s`) are not compared.
//!
//! A block preceded by `<!-- doc-test: slow -->` takes longer than about 20 s and
//! runs in the `#[ignore]`d test [`slow_doc_commands`]; one preceded by
//! `<!-- doc-test: skip REASON -->` is not run, for the reason given. A block that
//! is not `console` must not show a verdict or a `$ mowgli` prompt: output shown is
//! output tested.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// How a console block is run.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Run,
    Slow,
    Skip,
}

/// One `$ ` command of a console block, with the output lines shown after it.
#[derive(Debug)]
struct Shown {
    place: String,
    args: Vec<String>,
    exit: Option<i32>,
    output: Vec<String>,
}

/// A console block: where it is, how it is run, its commands.
struct Block {
    place: String,
    mode: Mode,
    commands: Vec<Shown>,
}

fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// Splits a command line as a shell would for these docs: words, single and
/// double quotes; `# …` to the end is a comment (`# exit N` sets the expected
/// status).
fn words(line: &str) -> (Vec<String>, Option<i32>) {
    let (mut out, mut cur, mut quote, mut any) = (Vec::new(), String::new(), None, false);
    let mut chars = line.chars().peekable();
    let mut exit = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, '#') if !any && cur.is_empty() => {
                let rest: String = chars.by_ref().collect();
                exit = rest.trim().strip_prefix("exit ").and_then(|n| n.trim().parse().ok());
                break;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (None, c) => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    (out, exit)
}

/// The console blocks of `file`, and the places of other blocks that show output
/// as if tested (a `verdict:` line or a `$ mowgli` prompt).
fn blocks(file: &Path) -> (Vec<Block>, Vec<String>) {
    let text = std::fs::read_to_string(file).expect("readable");
    let name = file.strip_prefix(root()).unwrap_or(file).display().to_string();
    let lines: Vec<&str> = text.lines().collect();
    let (mut found, mut untested) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < lines.len() {
        let Some(lang) = lines[i].strip_prefix("```") else {
            i += 1;
            continue;
        };
        let start = i;
        let mut end = i + 1;
        while end < lines.len() && !lines[end].starts_with("```") {
            end += 1;
        }
        let body = &lines[start + 1..end.min(lines.len())];
        let place = format!("{name}:{}", start + 1);
        if lang.trim() != "console" {
            if body.iter().any(|l| l.starts_with("verdict:") || l.starts_with("$ mowgli")) {
                untested.push(place);
            }
            i = end + 1;
            continue;
        }
        let marker = start.checked_sub(1).map(|j| lines[j].trim()).unwrap_or_default();
        let mode = if marker == "<!-- doc-test: slow -->" {
            Mode::Slow
        } else if marker.starts_with("<!-- doc-test: skip ") {
            Mode::Skip
        } else {
            Mode::Run
        };
        let mut commands: Vec<Shown> = Vec::new();
        let mut j = 0;
        while j < body.len() {
            if let Some(cmd) = body[j].strip_prefix("$ ") {
                let mut line = cmd.to_string();
                // continuation lines
                while line.ends_with('\\') && j + 1 < body.len() {
                    line.pop();
                    j += 1;
                    line.push(' ');
                    line.push_str(body[j].trim());
                }
                let (mut args, exit) = words(&line);
                let cmd_place = format!("{name}:{}", start + 2 + j);
                if args.first().map(String::as_str) == Some("cargo") {
                    let prefix = ["cargo", "run", "--release", "--"];
                    assert!(
                        args.starts_with(&prefix.map(String::from)),
                        "{cmd_place}: expected `cargo run --release -- …`"
                    );
                    args.drain(..prefix.len());
                } else {
                    assert_eq!(args.first().map(String::as_str), Some("mowgli"), "{cmd_place}: not a mowgli command");
                    args.remove(0);
                }
                commands.push(Shown { place: cmd_place, args, exit, output: Vec::new() });
            } else if let Some(c) = commands.last_mut() {
                c.output.push(body[j].to_string());
            } else if mode != Mode::Skip {
                panic!("{place}: output before the first `$ ` command");
            }
            j += 1;
        }
        found.push(Block { place, mode, commands });
        i = end + 1;
    }
    (found, untested)
}

/// `line` with durations (`12.5 ms`, `3 s`, `0.9 s`) replaced by `<t>`.
fn untimed(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let starts_number = chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_alphanumeric());
        if starts_number {
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.' || chars[j] == ',') {
                j += 1;
            }
            let mut k = j;
            if k < chars.len() && chars[k] == ' ' {
                k += 1;
            }
            let unit: String = chars[k..].iter().take(2).collect();
            let len = if unit == "ms" {
                2
            } else if unit.starts_with('s') {
                1
            } else {
                0
            };
            let after = chars.get(k + len).copied();
            if len > 0 && !after.is_some_and(|c| c.is_alphanumeric()) {
                out.push_str("<t>");
                i = k + len;
                continue;
            }
            out.extend(&chars[i..j]);
            i = j;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// Whether the shown line (with `…` for parts left out) matches `actual`.
fn line_matches(shown: &str, actual: &str) -> bool {
    let (shown, actual) = (untimed(shown), untimed(actual));
    let parts: Vec<&str> = shown.split('…').collect();
    let mut rest = actual.as_str();
    for (n, part) in parts.iter().enumerate() {
        if part.is_empty() {
            continue;
        }
        let found = if n == 0 { rest.starts_with(part).then_some(0) } else { rest.find(part) };
        match found {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    parts.last().is_some_and(|l| l.is_empty()) || rest.is_empty()
}

/// The exit status a verdict word stands for.
fn status_of(word: &str) -> Option<i32> {
    match word {
        "verified" => Some(0),
        "counterexample" => Some(1),
        "error" => Some(2),
        "inconclusive" => Some(3),
        _ => None,
    }
}

/// A scratch folder that sees the repository's `specs/`.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mowgli-doc-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    #[cfg(unix)]
    std::os::unix::fs::symlink(root().join("specs"), d.join("specs")).expect("symlink");
    d
}

/// Runs the commands of `block`; the problems found.
fn run_block(block: &Block, n: usize) -> Vec<String> {
    let dir = scratch(&n.to_string());
    let mut problems = Vec::new();
    for c in &block.commands {
        let started = std::time::Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_mowgli"))
            .current_dir(&dir)
            .args(&c.args)
            .env("NO_COLOR", "1")
            .output()
            .expect("runs");
        let secs = started.elapsed().as_secs_f64();
        let code = out.status.code().unwrap_or(-1);
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let text = format!("{stdout}{stderr}");
        let verdict = c.output.iter().find_map(|l| l.strip_prefix("verdict: ")).and_then(|v| v.split(' ').next());
        let want = c.exit.or(verdict.and_then(status_of)).unwrap_or(0);
        let what = format!("{} `mowgli {}` ({secs:.1} s)", c.place, c.args.join(" "));
        if code != want {
            problems.push(format!("{what}: exit {code}, the doc shows {want}\n{}", tail(&text)));
            continue;
        }
        // stdout and stderr each in order (the doc shows them as a terminal
        // interleaves them)
        let streams: [Vec<&str>; 2] = [stdout.lines().collect(), stderr.lines().collect()];
        let mut at = [0, 0];
        for shown in c.output.iter().filter(|l| !matches!(l.trim(), "…" | "..." | "")) {
            let found = (0..2).find_map(|s| {
                streams[s][at[s]..].iter().position(|a| line_matches(shown, a)).map(|k| (s, at[s] + k + 1))
            });
            match found {
                Some((s, next)) => at[s] = next,
                None => {
                    problems.push(format!(
                        "{what}: the doc shows\n    {shown}\nwhich is not in the output (after stdout line {}, stderr line {}):\n{}",
                        at[0],
                        at[1],
                        tail(&text)
                    ));
                    break;
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    problems
}

/// The last lines of an output, for a message.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].iter().map(|l| format!("  | {l}\n")).collect()
}

fn all_blocks() -> Vec<Block> {
    let mut all = Vec::new();
    let mut untested = Vec::new();
    for f in doc_files() {
        let (b, u) = blocks(&f);
        all.extend(b);
        untested.extend(u);
    }
    assert!(
        untested.is_empty(),
        "blocks that show a verdict or a `$ mowgli` prompt but are not ```console (so not tested): {untested:?}"
    );
    all
}

fn run_all(mode: Mode) {
    let blocks = all_blocks();
    let mut problems = Vec::new();
    let mut ran = 0;
    for (n, b) in blocks.iter().enumerate().filter(|(_, b)| b.mode == mode) {
        assert!(!b.commands.is_empty(), "{}: a console block without a `$ ` command", b.place);
        problems.extend(run_block(b, n));
        ran += b.commands.len();
    }
    println!("{ran} documented commands run");
    assert!(
        problems.is_empty(),
        "{} documented commands disagree with their run:\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}

#[test]
fn doc_commands() {
    run_all(Mode::Run);
}

/// The documented commands that take longer than about 20 s (the blocks marked
/// `<!-- doc-test: slow -->`): `cargo test --release --test doc_commands -- --ignored`.
#[test]
#[ignore]
fn slow_doc_commands() {
    run_all(Mode::Slow);
}

#[test]
fn the_harness() {
    assert_eq!(
        words("mowgli trace f --outcome 'a = 1 /\\ b = 0'  # exit 1"),
        (vec!["mowgli".to_string(), "trace".into(), "f".into(), "--outcome".into(), "a = 1 /\\ b = 0".into()], Some(1))
    );
    assert_eq!(untimed("summary: 3 tests; 53.4 ms (1 s), 2 sizes"), "summary: 3 tests; <t> (<t>), 2 sizes");
    assert!(line_matches("summary: … 11 checks; 3090.9 ms", "summary: a vs b: 11 checks; 12.0 ms"));
    assert!(line_matches("test X (…) under rdmasc", "test X (specs/x.litmus) under rdmasc"));
    assert!(!line_matches("test X (…) under rdmasc", "test X (specs/x.litmus) under rdmatso"));
    assert!(line_matches("  only b: x=0…", "  only b: x=0 y=1"));
    // every skipped block says why
    for f in doc_files() {
        let text = std::fs::read_to_string(&f).expect("readable");
        for l in text.lines().filter(|l| l.starts_with("<!-- doc-test: ")) {
            assert!(
                l == "<!-- doc-test: slow -->" || l.strip_prefix("<!-- doc-test: skip ").is_some_and(|r| r.len() > 8),
                "{}: `{l}`: expected `<!-- doc-test: slow -->` or `<!-- doc-test: skip REASON -->`",
                f.display()
            );
        }
    }
}
