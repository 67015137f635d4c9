//! Fuzzing of every input language (issue 32): litmus tests, herd7 x86 tests,
//! implementations (`.impl`), library files (`.lib`) and the files they include
//! (`.inc`), stamp orders (`.to`), the shard reports `mowgli merge` reads, and
//! command lines. Each case is a seed of the language (the project's own files
//! under `specs/`, and `tests/fuzz/corpus/`) mutated by `common::fuzz`, run by
//! the `mowgli` binary, and held to the contract of `common::contract`.
//!
//! `cargo test` runs a fixed, small number of cases per language (the same ones
//! every time). The ignored `fuzz_campaign` runs for a while per language:
//!
//! ```text
//! MOWGLI_FUZZ_SECS=3600 MOWGLI_FUZZ_LANGS=litmus,impl \
//!   cargo test --release --test fuzz_inputs -- --ignored --nocapture
//! ```
//!
//! with `MOWGLI_FUZZ_SEED` (a number; default: the clock), `MOWGLI_FUZZ_JOBS`
//! (parallel runs, default 2) and `MOWGLI_FUZZ_OUT` (where a case that breaks
//! the contract is written, in the shape of `tests/fuzz/crashers/`; default a
//! folder under the system's temporary folder).

#[path = "common/contract.rs"]
mod contract;
#[path = "common/fuzz.rs"]
mod fuzz;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fuzz::Index;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository")
}

/// One seed: its file name and text.
struct Seed {
    name: String,
    text: Vec<u8>,
}

/// An input language: its seeds, their dictionary, and how a mutated seed is run.
struct Lang {
    name: &'static str,
    seeds: Vec<Seed>,
    dict: Vec<Vec<u8>>,
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut es: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    es.sort();
    for p in es {
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
}

fn is_herd(text: &[u8]) -> bool {
    text.starts_with(b"X86")
}

const LANGS: [&str; 8] = ["litmus", "herd", "impl", "lib", "inc", "to", "json", "cli"];

/// The command lines the `cli` language mutates (from the repository's root;
/// `@TMP@` is the case's folder). Long runs by design (`explore --search`,
/// `cells`, `axioms`, `pivot`) are left out; `refine` and `obligations` get a
/// time limit after the mutation (see [`guard`]).
const COMMANDS: [&str; 16] = [
    "litmus specs/litmus/rdma/RDMA-Fig1a-TSO-SB.litmus",
    "litmus --json --stats specs/litmus/loco/LOCO-Sec3.4-sv-write-read.litmus",
    "litmus --format herd specs/litmus/herd-x86/SB.litmus",
    "litmus --engine both --max-values 4 specs/litmus/rdma/RDMA-Fig1d-TSO-MP.litmus",
    "litmus -q --dot @TMP@ --stamp-order specs/stamp-orders/loco-fig10.to specs/litmus/lang",
    "trace specs/litmus/rdma/RDMA-Fig1d-TSO-MP.litmus --outcome T2:a=1 --machine simplified",
    "robust --fix --fix-out @TMP@ specs/litmus/robustness/ROB-AppB1-SB-TSO.litmus",
    "robust --to-star --star-out @TMP@ --model rdmatso specs/litmus/robustness",
    "refine specs/impls/isv.impl --calls 1 --jobs 1",
    "refine specs/impls/ibal.impl --clients specs/clients/bal --json",
    "obligations specs/impls/isv.impl --calls 1 --observe-budget 1 --observe-out @TMP@",
    "generate --libs sv --threads 2 --instrs 1 --out @TMP@",
    "stamp-order --stamp-order specs/stamp-orders/loco-fig10.to",
    "merge tests/fuzz/corpus/json/ob-1.json tests/fuzz/corpus/json/ob-2.json",
    "merge --partial --json tests/fuzz/corpus/json/rf-2.json",
    "explore --base rdmatso --variant rdmatso_nopcie specs/litmus/rdma",
];

fn load(name: &'static str, root: &Path) -> Lang {
    let read = |p: &Path| Seed {
        name: p.file_name().unwrap_or_default().to_string_lossy().into_owned(),
        text: std::fs::read(p).unwrap_or_default(),
    };
    let mut paths = Vec::new();
    let seeds: Vec<Seed> = match name {
        "litmus" | "herd" => {
            files(&root.join("specs"), "litmus", &mut paths);
            files(&root.join("tests/fuzz/corpus/litmus"), "litmus", &mut paths);
            paths.iter().map(|p| read(p)).filter(|s| is_herd(&s.text) == (name == "herd")).collect()
        }
        "impl" => {
            files(&root.join("specs/impls"), "impl", &mut paths);
            paths.iter().map(|p| read(p)).collect()
        }
        "lib" | "inc" | "to" => {
            let dir = if name == "to" { "specs/stamp-orders" } else { "specs/libs" };
            files(&root.join(dir), name, &mut paths);
            paths.iter().map(|p| read(p)).collect()
        }
        "json" => {
            files(&root.join("tests/fuzz/corpus/json"), "json", &mut paths);
            paths.iter().map(|p| read(p)).collect()
        }
        _ => COMMANDS.iter().map(|c| Seed { name: c.to_string(), text: c.replace(' ', "\n").into_bytes() }).collect(),
    };
    let texts: Vec<&[u8]> = seeds.iter().map(|s| s.text.as_slice()).collect();
    let mut dict = fuzz::dictionary(&texts);
    if name == "cli" {
        // whole arguments: those of the commands above, every option, a few values
        dict = COMMANDS.iter().flat_map(|c| c.split(' ')).map(|a| a.as_bytes().to_vec()).collect();
        // every option of the commands above, and a few values
        for w in [
            "--json",
            "--stats",
            "-q",
            "--quiet",
            "--dot",
            "--stamp-order",
            "--engine",
            "--format",
            "--max-values",
            "--max-work",
            "--outcome",
            "--machine",
            "--pcie",
            "--no-reduce",
            "--model",
            "--fix",
            "--syntactic",
            "--calls",
            "--threads",
            "--nodes",
            "--clients",
            "--spec",
            "--observer",
            "--loop-bound",
            "--first-fail",
            "--partition",
            "--jobs",
            "--time-limit",
            "--timeout",
            "--observe-budget",
            "--check-specs",
            "--lib",
            "--libs",
            "--instrs",
            "--locs",
            "--values",
            "--max-tests",
            "--partial",
            "--base",
            "--variant",
            "-h",
            "--help",
            "--version",
            "1/2",
            "0/0",
            "3/2",
            "-",
            "",
            "=",
            "specs/libs/lock.lib",
            "@TMP@",
        ] {
            dict.push(w.as_bytes().to_vec());
        }
        dict.sort();
        dict.dedup();
    }
    Lang { name, seeds, dict }
}

/// Test files whose `libraries` line names `lib` (the tests a mutated library
/// file runs on), at most two.
fn tests_of(root: &Path, lib: &str) -> Vec<String> {
    let mut paths = Vec::new();
    files(&root.join("specs"), "litmus", &mut paths);
    let uses = |t: &str| {
        t.lines().any(|l| l.strip_prefix("libraries").is_some_and(|r| r.split([',', ' ']).any(|w| w.trim() == lib)))
    };
    let found: Vec<String> = paths
        .iter()
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| uses(&t)))
        .take(2)
        .map(|p| p.strip_prefix(root).unwrap_or(p).display().to_string())
        .collect();
    if found.is_empty() {
        vec!["specs/litmus/loco".into()]
    } else {
        found
    }
}

/// After a mutation of a command line: a time limit where the command runs
/// as long as its bounds ask, so that a large bound is not taken for a hang.
fn guard(mut args: Vec<String>) -> Vec<String> {
    match args.first().map(String::as_str) {
        Some("refine") | Some("obligations") => args.extend(["--time-limit".into(), "3".into()]),
        Some("generate") => args.extend(["--max-tests".into(), "40".into()]),
        _ => {}
    }
    args
}

/// Writes the case's files into `dir` (its folder) and returns the command.
fn command(lang: &Lang, root: &Path, seed: &Seed, text: &[u8], dir: &Path, pick: usize) -> Vec<String> {
    let write = |name: &str, t: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, t).expect("writes the case");
        p.display().to_string()
    };
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<String>>();
    let libs = root.join("specs/libs");
    // the library files beside the mutated one (what `include` reads)
    let copy_libs = || {
        let mut ps = Vec::new();
        files(&libs, "inc", &mut ps);
        files(&libs, "lib", &mut ps);
        for p in ps {
            let _ = std::fs::copy(&p, dir.join(p.file_name().unwrap_or_default()));
        }
    };
    match lang.name {
        "litmus" => {
            let f = write("input.litmus", text);
            let cmd = ["litmus", "litmus", "robust", "trace"][pick % 4];
            let lock =
                if seed.text.windows(4).any(|w| w == b"lock") { vec!["--lib", "specs/libs/lock.lib"] } else { vec![] };
            let mut a = s(&[cmd, &f]);
            a.extend(s(&lock));
            if cmd == "trace" {
                a.extend(s(&["--outcome", "true"]));
            }
            a
        }
        "herd" => {
            let f = write("input.litmus", text);
            if pick.is_multiple_of(2) {
                s(&["litmus", "--format", "herd", &f])
            } else {
                s(&["litmus", "--json", &f])
            }
        }
        "impl" => {
            let f = write("input.impl", text);
            let mut a = if pick.is_multiple_of(2) {
                s(&["refine", &f, "--calls", "1", "--time-limit", "2", "--jobs", "1"])
            } else {
                s(&["obligations", &f, "--calls", "1", "--time-limit", "2", "--observe-budget", "1"])
            };
            if seed.text.windows(4).any(|w| w == b"lock") {
                a.extend(s(&["--lib", "specs/libs/lock.lib"]));
            }
            a
        }
        "lib" | "inc" => {
            copy_libs();
            let f = write(&seed.name, text);
            // the library files that read it (an .inc: those that include it)
            let libs_of: Vec<String> = if lang.name == "lib" {
                vec![f]
            } else {
                let mut ps = Vec::new();
                files(&libs, "lib", &mut ps);
                let inc = format!("include \"{}\"", seed.name);
                let users: Vec<String> = ps
                    .iter()
                    .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains(&inc)))
                    .map(|p| dir.join(p.file_name().unwrap_or_default()).display().to_string())
                    .collect();
                users.into_iter().take(1).collect()
            };
            let mut a = s(&["litmus"]);
            for l in &libs_of {
                a.extend(s(&["--lib", l]));
                let name = Path::new(l).file_stem().unwrap_or_default().to_string_lossy().into_owned();
                a.extend(tests_of(root, &name));
            }
            a
        }
        "to" => {
            let f = write(&seed.name, text);
            match pick % 3 {
                0 => s(&["stamp-order", "--stamp-order", &f]),
                _ => s(&["litmus", "-q", "--stamp-order", &f, "specs/litmus/rdma/RDMA-Fig1a-TSO-SB.litmus"]),
            }
        }
        "json" => {
            let f = write(&seed.name, text);
            let other = match seed.name.strip_suffix("-1.json") {
                Some(base) => format!("{base}-2.json"),
                None => seed.name.replace("-2.json", "-1.json"),
            };
            let other = root.join("tests/fuzz/corpus/json").join(other).display().to_string();
            match pick % 3 {
                0 => s(&["merge", &f, &other]),
                1 => s(&["merge", "--partial", &f]),
                _ => s(&["merge", "--json", &other, &f]),
            }
        }
        _ => {
            // a command line: one argument per line of the mutated text
            // (an argument cannot hold a NUL byte)
            let text = String::from_utf8_lossy(text).replace(['\r', '\0'], "");
            let tmp = dir.display().to_string();
            // within what the system passes to a program (an argument of at most
            // 128 KiB, all of them a few MiB)
            let mut total = 0;
            let args: Vec<String> = text
                .split('\n')
                .filter(|a| !a.is_empty())
                .map(|a| a.replace("@TMP@", &tmp).chars().take(60_000).collect::<String>())
                .take_while(|a| {
                    total += a.len() + 1;
                    total < 600_000
                })
                .collect();
            guard(args)
        }
    }
}

/// What a campaign found: per signature of a failure, how many cases and where
/// the first ones were written.
#[derive(Default)]
struct Found {
    cases: AtomicUsize,
    /// Runs per exit status 0..=3 (the rest: other).
    exits: [AtomicUsize; 5],
    by_signature: Mutex<BTreeMap<String, (usize, Vec<String>)>>,
}

/// A failure's signature: what broke and the first line of stderr, digits dropped.
fn signature(lang: &str, v: &[String], stderr: &str) -> String {
    let first = stderr.lines().next().unwrap_or_default();
    let first: String = first.chars().filter(|c| !c.is_ascii_digit()).take(100).collect();
    let what: String =
        v.first().map(|s| s.chars().filter(|c| !c.is_ascii_digit()).take(60).collect()).unwrap_or_default();
    format!("{lang}: {what} :: {first}")
}

/// Runs one case of `lang` drawn by `runner`: records a failure in `found`
/// (writing the case under `out`).
fn one_case(lang: &Lang, root: &Path, runner: &mut TestRunner, found: &Found, out: &Path) {
    let Ok(pick) = any::<usize>().new_tree(runner).map(|t| t.current()) else { return };
    // a command line is edited argument by argument, a file token by token
    let (seed, text, edits) = if lang.name == "cli" {
        let Ok(tree) = fuzz::arg_case().new_tree(runner) else { return };
        let (seed_ix, edits): (Index, Vec<fuzz::ArgEdit>) = tree.current();
        let seed = &lang.seeds[seed_ix.index(lang.seeds.len())];
        let args: Vec<String> = String::from_utf8_lossy(&seed.text).split('\n').map(str::to_string).collect();
        let args = fuzz::apply_args(args, &edits, &lang.dict);
        (seed, args.join("\n").into_bytes(), format!("{edits:?}"))
    } else {
        let Ok(tree) = fuzz::case().new_tree(runner) else { return };
        let (seed_ix, edits): (Index, Vec<fuzz::Edit>) = tree.current();
        let seed = &lang.seeds[seed_ix.index(lang.seeds.len())];
        let others: Vec<&[u8]> = lang.seeds.iter().map(|s| s.text.as_slice()).collect();
        (seed, fuzz::apply(&seed.text, &edits, &lang.dict, &others), format!("{edits:?}"))
    };
    let n = found.cases.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("mowgli-fuzz-{}-{}-{n}", std::process::id(), lang.name));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a case folder");
    let args = command(lang, root, seed, &text, &dir, pick);
    // command lines also meet a full disk and a reader that went away
    let stdout = match (lang.name, pick % 6) {
        ("cli", 0) => contract::Stdout::Full,
        ("cli", 1) => contract::Stdout::Closed,
        _ => contract::Stdout::Null,
    };
    let r = contract::run(env!("CARGO_BIN_EXE_mowgli"), root, &args, stdout, Duration::from_secs(20));
    found.exits[r.code.filter(|c| (0..=3).contains(c)).map_or(4, |c| c as usize)].fetch_add(1, Ordering::Relaxed);
    let v = contract::violations(&r, root);
    if std::env::var_os("MOWGLI_FUZZ_DEBUG").is_some() {
        eprintln!("{} {args:?} -> {:?}: {}", lang.name, r.code, r.stderr.lines().next().unwrap_or_default());
    }
    if !v.is_empty() {
        let sig = signature(lang.name, &v, &r.stderr);
        let mut by = found.by_signature.lock().unwrap_or_else(|e| e.into_inner());
        let entry = by.entry(sig).or_default();
        entry.0 += 1;
        if entry.1.len() < 3 {
            // the case in the shape of tests/fuzz/crashers/ (`@DIR@`: its folder)
            let case = out.join(format!("{}-{n}", lang.name));
            let _ = std::fs::create_dir_all(&case);
            let here = dir.display().to_string();
            let mut argv: Vec<String> = args.iter().map(|a| a.replace(&here, "@DIR@")).collect();
            match stdout {
                contract::Stdout::Full => argv.insert(0, "@STDOUT=full@".into()),
                contract::Stdout::Closed => argv.insert(0, "@STDOUT=closed@".into()),
                contract::Stdout::Null => {}
            }
            let _ = std::fs::write(case.join("argv"), argv.join("\n") + "\n");
            if let Ok(rd) = std::fs::read_dir(&dir) {
                for e in rd.flatten() {
                    let _ = std::fs::copy(e.path(), case.join(e.file_name()));
                }
            }
            let tail: String = r.stderr.lines().take(20).collect::<Vec<_>>().join("\n");
            let info = format!(
                "language: {}\nseed: {}\nmutations: {edits}\nexit: {:?}\nseconds: {:.2}\ndetail: {}\n--- stderr\n{tail}\n",
                lang.name,
                seed.name,
                r.code,
                r.secs,
                v.join("; ")
            );
            let _ = std::fs::write(case.join("info.txt"), info);
            entry.1.push(case.display().to_string());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `lang` with `jobs` workers until `cases` cases or `until`, from `seed`.
/// The cases run in a copy of the repository's inputs (`specs/`, the fuzzing
/// corpus, `mowgli.toml`),
/// not in the repository: a mutated command line may name any folder as an
/// output (`--out specs`, `--fix-out 4294967296`), and the files it writes must
/// neither land in the clone nor outlive the campaign.
fn campaign(lang: &Lang, root: &Path, seed: u64, cases: usize, until: Instant, jobs: usize, out: &Path) -> Found {
    let work = std::env::temp_dir().join(format!("mowgli-fuzz-root-{}-{}", std::process::id(), lang.name));
    let _ = std::fs::remove_dir_all(&work);
    copy_tree(&root.join("specs"), &work.join("specs")).expect("a copy of specs/");
    copy_tree(&root.join("tests/fuzz/corpus"), &work.join("tests/fuzz/corpus")).expect("a copy of the corpus");
    std::fs::copy(root.join("mowgli.toml"), work.join("mowgli.toml")).expect("a copy of mowgli.toml");
    let found = run_campaign(lang, &work, seed, cases, until, jobs, out);
    let _ = std::fs::remove_dir_all(&work);
    found
}

/// Copies the folder `from` to `to`, recursively.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        if e.file_type()?.is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()))?;
        } else {
            std::fs::copy(e.path(), to.join(e.file_name()))?;
        }
    }
    Ok(())
}

fn run_campaign(lang: &Lang, root: &Path, seed: u64, cases: usize, until: Instant, jobs: usize, out: &Path) -> Found {
    let found = Found::default();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for w in 0..jobs {
            let (found, next) = (&found, &next);
            s.spawn(move || {
                let mut key = [0u8; 32];
                key[..8].copy_from_slice(&seed.to_le_bytes());
                key[8..16].copy_from_slice(&(w as u64).to_le_bytes());
                key[16..16 + lang.name.len().min(16)].copy_from_slice(&lang.name.as_bytes()[..lang.name.len().min(16)]);
                let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &key);
                let mut runner = TestRunner::new_with_rng(Config::default(), rng);
                while next.fetch_add(1, Ordering::Relaxed) < cases && Instant::now() < until {
                    one_case(lang, root, &mut runner, found, out);
                }
            });
        }
    });
    found
}

fn report(lang: &str, found: &Found, secs: f64) -> Vec<String> {
    let by = found.by_signature.lock().unwrap_or_else(|e| e.into_inner());
    let n = found.cases.load(Ordering::Relaxed);
    let e: Vec<usize> = found.exits.iter().map(|x| x.load(Ordering::Relaxed)).collect();
    eprintln!(
        "fuzz {lang}: {n} cases in {secs:.0} s (exit 0: {}, 1: {}, 2: {}, 3: {}, other: {}), {} failure signatures",
        e[0],
        e[1],
        e[2],
        e[3],
        e[4],
        by.len()
    );
    by.iter().map(|(sig, (k, cases))| format!("{sig} ({k} cases, e.g. {})", cases.join(", "))).collect()
}

/// Cases per language in `cargo test` (drawn from a fixed seed: the same ones every time).
const QUICK_CASES: usize = 100;

/// The fixed, quick run of `lang` in `cargo test`.
fn quick(lang: &'static str) {
    let root = root();
    let l = load(lang, &root);
    assert!(!l.seeds.is_empty(), "no seeds for {lang}");
    let out = std::env::temp_dir().join(format!("mowgli-fuzz-found-{}", std::process::id()));
    let start = Instant::now();
    let found = campaign(&l, &root, 32, QUICK_CASES, Instant::now() + Duration::from_secs(120), 1, &out);
    let failures = report(lang, &found, start.elapsed().as_secs_f64());
    assert!(failures.is_empty(), "cases of {lang} break the contract:\n{}", failures.join("\n"));
}

#[test]
fn fuzz_litmus() {
    quick("litmus");
}
#[test]
fn fuzz_herd() {
    quick("herd");
}
#[test]
fn fuzz_impl() {
    quick("impl");
}
#[test]
fn fuzz_lib() {
    quick("lib");
}
#[test]
fn fuzz_inc() {
    quick("inc");
}
#[test]
fn fuzz_to() {
    quick("to");
}
#[test]
fn fuzz_json() {
    quick("json");
}
#[test]
fn fuzz_cli() {
    quick("cli");
}

/// The mutator makes what it says: deep nesting, a long name, a line repeated.
#[test]
fn the_mutator_makes_the_shapes_it_aims_at() {
    let text = b"T1:\n  a = Read(x)\n";
    let ix = |k: u64| Index::tenths(k);
    let nested = fuzz::apply(text, &[fuzz::Edit::Nest(ix(0), ix(0), 100, true)], &[], &[]);
    assert!(nested.starts_with(&[b'('; 100]), "{}", String::from_utf8_lossy(&nested));
    let long = fuzz::apply(text, &[fuzz::Edit::LongName(ix(3), 1000)], &[], &[]);
    assert!(long.windows(1000).any(|w| w.iter().all(|&b| b == b'a')));
    let many = fuzz::apply(text, &[fuzz::Edit::RepeatLine(ix(5), 300)], &[], &[]);
    assert!(many.len() > 300 * 10);
}

/// A long campaign: `MOWGLI_FUZZ_SECS` seconds per language (see the top of the file).
#[test]
#[ignore]
fn fuzz_campaign() {
    let env = |k: &str| std::env::var(k).ok();
    let secs: u64 = env("MOWGLI_FUZZ_SECS").and_then(|s| s.parse().ok()).unwrap_or(60);
    let jobs: usize = env("MOWGLI_FUZZ_JOBS").and_then(|s| s.parse().ok()).unwrap_or(2);
    let seed: u64 = env("MOWGLI_FUZZ_SEED").and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_secs())
    });
    let langs: Vec<String> = env("MOWGLI_FUZZ_LANGS")
        .map(|s| s.split(',').map(str::to_string).collect())
        .unwrap_or_else(|| LANGS.iter().map(|s| s.to_string()).collect());
    let out = env("MOWGLI_FUZZ_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join(format!("mowgli-fuzz-found-{seed}")));
    let root = root();
    eprintln!("fuzz campaign: seed {seed}, {secs} s per language, {jobs} jobs, failures to {}", out.display());
    let mut failures = Vec::new();
    for name in &langs {
        let Some(&lang) = LANGS.iter().find(|l| *l == name) else { panic!("unknown language {name}: {LANGS:?}") };
        let l = load(lang, &root);
        let start = Instant::now();
        let found = campaign(&l, &root, seed, usize::MAX, start + Duration::from_secs(secs), jobs, &out);
        failures.extend(report(lang, &found, start.elapsed().as_secs_f64()));
    }
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}
