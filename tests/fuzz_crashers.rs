//! Every case of `tests/fuzz/crashers/` (inputs that once made Mowgli panic,
//! overflow its stack, run out of memory, hang, or report an error without a
//! usable position) keeps the contract of `common::contract`: an end within 20 s,
//! exit status 0 to 3, no panic, overflow or abort, and `file:line:column` with
//! the source line on an error exit.
//!
//! A case is a folder with `argv` (the command, one argument per line, run from
//! the repository's root; `@DIR@` is the case's folder, `@TMP@` a fresh
//! temporary folder, `@GEN@` a folder with the input [`generate`] writes for the
//! case; a first line `@STDOUT=full@` or `@STDOUT=closed@` sends the standard
//! output to `/dev/full` or a closed pipe), `info.txt` (what happened) and the
//! input files.

#[path = "common/contract.rs"]
mod contract;

use std::path::{Path, PathBuf};
use std::time::Duration;

use contract::Stdout;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository")
}

/// A fresh folder under the system's temporary folder.
fn fresh(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mowgli-fuzz-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("a temporary folder");
    d
}

/// The input of a case whose file is generated (too large to keep): the case's
/// `make.py` says the same in Python. A name 200,000 characters long, used
/// misspelt: the "did you mean" suggestion once took quadratic time in it.
fn generate(case: &str, root: &Path, out: &Path) -> Result<(), String> {
    let (long, misspelt) = ("a".repeat(200_000), "a".repeat(199_990));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).map_err(|e| format!("{p}: {e}"));
    let (name, text) = match case {
        "hang-lib-longname" => {
            let old = "method Write(x: loc, v: val) {\n  stamps aCW\n  aCW writes x@here = v";
            let sv = read("specs/libs/sv.lib")?;
            if !sv.contains(old) {
                return Err("specs/libs/sv.lib changed: update the generator".into());
            }
            let new = format!("method Write(x: loc, {long}: val) {{\n  stamps aCW\n  aCW writes x@here = {misspelt}");
            ("sv.lib", sv.replace(old, &new))
        }
        "hang-litmus-longname" => (
            "input.litmus",
            format!(
                "test X\nlibraries rdmatso\nthread T1 @ 1\nloc {long} @ 1\nT1:\n  Write({misspelt}, 1)\nexpect allowed true\n"
            ),
        ),
        "hang-to-longname" => {
            let to = read("specs/stamp-orders/loco-fig10.to")?;
            let mut lines: Vec<String> = to.split('\n').map(str::to_string).collect();
            let i = lines.iter().position(|l| l.starts_with("columns")).ok_or("no `columns` line")?;
            lines[i] = lines[i].replace("aWT", &long);
            let is_row = |l: &String| l.strip_prefix('E').is_some_and(|r| r.trim_start().starts_with("aWT"));
            let j = lines.iter().position(is_row).ok_or("no row `E aWT`")?;
            lines[j] = lines[j].replacen("aWT", &misspelt, 1);
            ("fig10.to", lines.join("\n"))
        }
        _ => return Err(format!("case {case} has a make.py but no generator here")),
    };
    std::fs::write(out.join(name), text).map_err(|e| e.to_string())
}

/// Runs one case: the contract's violations (empty: kept).
fn check_case(root: &Path, dir: &Path) -> Result<Vec<String>, String> {
    let case = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    let argv = std::fs::read_to_string(dir.join("argv")).map_err(|e| format!("argv: {e}"))?;
    let mut lines: Vec<&str> = argv.lines().collect();
    let stdout = match lines.first().copied() {
        Some("@STDOUT=full@") => Stdout::Full,
        Some("@STDOUT=closed@") => Stdout::Closed,
        _ => Stdout::Null,
    };
    if stdout != Stdout::Null {
        lines.remove(0);
    }
    let tmp = fresh(&format!("{case}-tmp"));
    let gen = fresh(&format!("{case}-gen"));
    if dir.join("make.py").exists() {
        generate(&case, root, &gen)?;
    }
    let at = |p: &Path| p.display().to_string();
    let args: Vec<String> = lines
        .iter()
        .map(|a| a.replace("@DIR@", &at(dir)).replace("@TMP@", &at(&tmp)).replace("@GEN@", &at(&gen)))
        .collect();
    let r = contract::run(env!("CARGO_BIN_EXE_mowgli"), root, &args, stdout, Duration::from_secs(20));
    let _ = std::fs::remove_dir_all(&tmp);
    let _ = std::fs::remove_dir_all(&gen);
    let mut v = contract::violations(&r, root);
    if !v.is_empty() {
        let tail: String = r.stderr.lines().take(12).collect::<Vec<_>>().join("\n");
        v.push(format!("exit {:?} after {:.1} s; stderr:\n{tail}", r.code, r.secs));
    }
    Ok(v)
}

#[test]
fn every_crasher_keeps_the_contract() {
    let root = root();
    let base = root.join("tests/fuzz/crashers");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&base)
        .expect("tests/fuzz/crashers")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("argv").exists())
        .collect();
    cases.sort();
    assert!(cases.len() >= 40, "the cases are missing: {} in {}", cases.len(), base.display());
    // two at a time: the machine's cores are shared
    let failures: Vec<String> = std::thread::scope(|s| {
        let chunks: Vec<&[PathBuf]> = cases.chunks(cases.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let root = &root;
                s.spawn(move || {
                    let mut out = Vec::new();
                    for dir in chunk {
                        let name = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
                        match check_case(root, dir) {
                            Ok(v) if v.is_empty() => {}
                            Ok(v) => out.push(format!("{name}: {}", v.join("; "))),
                            Err(e) => out.push(format!("{name}: cannot run: {e}")),
                        }
                    }
                    out
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("no panic")).collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} cases break the contract:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

/// The checker itself: a run that panics, one without a position, one past
/// its line's end and one that hangs are all caught.
#[test]
fn the_contract_catches_what_it_is_about() {
    let root = root();
    let run = |code, stderr: &str, timed_out| contract::Run { code, stderr: stderr.into(), secs: 0.0, timed_out };
    let panic = run(Some(101), "thread 'main' panicked at src/x.rs:1:1:\nboom", false);
    assert!(!contract::violations(&panic, &root).is_empty());
    assert!(!contract::violations(&run(None, "", false), &root).is_empty(), "a signal");
    assert!(!contract::violations(&run(Some(0), "", true), &root).is_empty(), "a hang");
    assert!(!contract::violations(&run(Some(2), "t.litmus: something is wrong", false), &root).is_empty());
    let past = "README.md:1:500: expected x\n   ,-[ README.md:1:500 ]\n";
    assert!(!contract::violations(&run(Some(2), past, false), &root).is_empty(), "past the line");
    let good = "README.md:1:1: expected x\n   ,-[ README.md:1:1 ]\n";
    assert!(contract::violations(&run(Some(2), good, false), &root).is_empty(), "{good}");
}

/// The hang criterion: a process that computes past the limit is killed there; one
/// that only waits (as on a busy machine) is given up to five times the limit, and
/// one that ends in that time is no hang.
#[test]
fn a_hang_is_computing_past_the_limit_not_waiting() {
    let root = root();
    let sh = |script: &str| {
        let args = vec!["-c".to_string(), script.to_string()];
        contract::run("/bin/sh", &root, &args, contract::Stdout::Null, std::time::Duration::from_secs(1))
    };
    let spin = sh("while :; do :; done");
    assert!(spin.timed_out && spin.secs < 4.0, "{spin:?}");
    let wait = sh("exec sleep 2");
    assert!(!wait.timed_out && wait.secs >= 2.0, "{wait:?}");
    let stuck = sh("exec sleep 30");
    assert!(stuck.timed_out && (5.0..10.0).contains(&stuck.secs), "{stuck:?}");
}
