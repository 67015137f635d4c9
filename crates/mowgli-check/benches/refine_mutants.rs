//! `cargo bench --bench refine_mutants`: the time to the first counterexample of
//! every shipped refinement mutant at the default bound, as a user runs it
//! (`mowgli refine MUTANT --first-fail`, no bound flags; the lock mutants with
//! `--lib specs/libs/lock.lib`): the first failing client, how many clients were
//! checked to reach it, the run's own time (wall, from its report) and the CPU
//! time of the process (all its workers; what the load of a shared machine does
//! not change). Each mutant must be refuted (exit 1), or the benchmark fails.
//!
//! `MOWGLI_BENCH_REPEAT=K` runs each mutant K times and shows the fastest.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[path = "common/proc_stat.rs"]
mod proc_stat;
use proc_stat::children_cpu_seconds;

struct Run {
    client: String,
    size: u64,
    checked: u64,
    millis: f64,
    wall: f64,
    cpu: f64,
}

fn run(mutant: &str, extra: &[&str]) -> Run {
    let path = root().join("specs/impls/mutants").join(format!("{mutant}.impl"));
    let cpu0 = children_cpu_seconds();
    let t0 = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_mowgli"))
        .current_dir(root())
        .arg("refine")
        .arg(&path)
        .args(extra)
        .args(["--first-fail", "--json"])
        .output()
        .expect("runs mowgli");
    let wall = t0.elapsed().as_secs_f64();
    let cpu = children_cpu_seconds() - cpu0;
    assert_eq!(out.status.code(), Some(1), "{mutant} must be refuted:\n{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let g = &v["generated"];
    let first = g["failures"].as_array().and_then(|f| f.first()).expect("a failing client");
    Run {
        client: first["name"].as_str().unwrap_or("?").to_string(),
        size: first["size"].as_u64().unwrap_or(0),
        checked: g["checked"].as_u64().unwrap_or(0),
        millis: g["millis"].as_f64().unwrap_or(f64::NAN),
        wall,
        cpu,
    }
}

fn main() {
    let repeat: usize = std::env::var("MOWGLI_BENCH_REPEAT").ok().and_then(|k| k.parse().ok()).unwrap_or(1).max(1);
    let lock = ["--lib", "specs/libs/lock.lib"];
    let mut mutants: Vec<(String, Vec<&str>)> = std::fs::read_dir(root().join("specs/impls/mutants"))
        .expect("the mutants")
        .filter_map(|e| e.ok()?.path().file_stem()?.to_str().map(str::to_string))
        .map(|m| {
            let extra = if m.starts_with("ilock") { lock.to_vec() } else { Vec::new() };
            (m, extra)
        })
        .collect();
    mutants.sort();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("time to the first counterexample, default bound, {workers} workers (fastest of {repeat})");
    println!(
        "  {:<26} {:<22} {:>4} {:>8} {:>10} {:>9} {:>8}",
        "mutant", "first counterexample", "size", "checked", "report ms", "wall s", "CPU s"
    );
    for (m, extra) in &mutants {
        // `ibal_loopback` reverts the counter only through a loop-back write the
        // model does not have (LOCO §4.2; tests/refine.rs,
        // `mutant_ibal_loopback_has_no_counterexample_in_the_model`)
        if m == "ibal_loopback" {
            continue;
        }
        let runs: Vec<Run> = (0..repeat).map(|_| run(m, extra)).collect();
        let best = runs.iter().min_by(|a, b| a.wall.total_cmp(&b.wall)).expect("one run");
        println!(
            "  {:<26} {:<22} {:>4} {:>8} {:>10.1} {:>9.3} {:>8.2}",
            m, best.client, best.size, best.checked, best.millis, best.wall, best.cpu
        );
    }
}
