//! `cargo bench --bench suite`: the whole litmus suite (`specs/litmus`) in release
//! mode. Reports, in one run: the suite's total time (median of several passes),
//! the slowest test, candidates explored against a naive rf × mo × nfo
//! enumeration, and the time of the naive enumerator on the same tests.
//! Set MOWGLI_BENCH_DIR to bench another directory.

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;
use std::time::Instant;

use mowgli_check::analyses::litmus;
use mowgli_libs::orders::default_order;

fn main() {
    let dir = std::env::var("MOWGLI_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../specs/litmus"));
    let order = default_order();
    let files = litmus::collect(std::slice::from_ref(&dir)).expect("bench directory");
    let texts: Vec<(String, String)> =
        files.iter().map(|f| (f.display().to_string(), std::fs::read_to_string(f).expect("readable"))).collect();
    let passes = 7;
    let mut totals = Vec::new();
    let mut per_test = vec![Vec::new(); texts.len()];
    let (mut cand, mut naive) = (0u64, 0f64);
    for pass in 0..passes {
        let start = Instant::now();
        for (i, (name, text)) in texts.iter().enumerate() {
            let t0 = Instant::now();
            let r = litmus::check_text(name, text, &order, &Catalogue::builtins()).expect("suite parses");
            per_test[i].push(t0.elapsed().as_secs_f64() * 1000.0);
            if pass == 0 {
                cand += r.stats.candidates;
                naive += r.stats.naive;
            }
        }
        totals.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    let total = median(&mut totals);
    let mut slow: Vec<(f64, &str)> =
        per_test.iter_mut().zip(&texts).map(|(v, (n, _))| (median(v), n.as_str())).collect();
    slow.sort_by(|a, b| b.0.total_cmp(&a.0));
    // the naive enumerator (no pruning) on the same tests, one pass
    let start = Instant::now();
    for (name, text) in &texts {
        litmus::check_text_with(name, text, &order, &Catalogue::builtins(), false).expect("suite parses");
    }
    let naive_ms = start.elapsed().as_secs_f64() * 1000.0;
    println!("suite: {} tests in {}", texts.len(), dir.display());
    println!("total time (median of {passes} passes): {total:.1} ms");
    for (t, n) in slow.iter().take(5) {
        println!("  slowest: {t:8.2} ms  {n}");
    }
    println!(
        "candidates explored: {cand}; naive rf×mo×nfo candidates: {naive:.0}; ratio {:.1}x fewer",
        naive / cand.max(1) as f64
    );
    println!("naive enumerator, same tests, one pass: {naive_ms:.1} ms ({:.1}x the pruned engine)", naive_ms / total);
}
