//! `cargo bench --bench robust`: `mowgli robust` measured, in one run.
//!
//! 1. The syntactic check (`--syntactic`: gb, LDRF, fenced, tree-fenced) on random
//!    straight-line programs of 10 threads on 10 nodes (4 locations per node) of
//!    1,000 to 30,000 instructions: the time per instruction should stay flat
//!    (linear-ish), and the 10,000-instruction program is the measure.
//! 2. The exact check on the robustness paper's figures (`specs/litmus/robustness`)
//!    against `mowgli litmus` on the same files (the target: within 2×).
//!
//! Times are medians of several passes (release build).

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;
use std::time::Instant;

use mowgli_check::analyses::litmus;
use mowgli_check::analyses::robust::{self, random::random_program};
use mowgli_libs::orders::default_order;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let order = default_order();
    println!("syntactic check, random programs (10 threads, 10 nodes, 4 locations per node):");
    let sizes: Vec<usize> = match std::env::var("MOWGLI_BENCH_SIZES") {
        Ok(v) => v.split(',').filter_map(|x| x.trim().parse().ok()).collect(),
        Err(_) => vec![1_000, 3_000, 10_000, 30_000],
    };
    for n in sizes {
        let text = random_program(10, 4, n, 7);
        let passes = if n <= 10_000 { 5 } else { 3 };
        let mut ms = Vec::new();
        let mut last = None;
        for _ in 0..passes {
            let t0 = Instant::now();
            let r = robust::check_text_with("<random>", &text, &order, &Catalogue::builtins(), None, false)
                .expect("a well-formed program");
            ms.push(t0.elapsed().as_secs_f64() * 1000.0);
            last = Some(r);
        }
        let r = last.expect("one pass");
        let m = median(ms);
        println!(
            "  {n:>6} instructions: {m:9.1} ms ({:.2} µs per instruction); LDRF {}, fenced {}, tree-fenced {}, {} \
             violations",
            m * 1000.0 / n as f64,
            r.syntactic.ldrf,
            r.syntactic.fenced,
            r.syntactic.tree_fenced,
            r.syntactic.violations_total
        );
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../specs/litmus/robustness");
    let files = litmus::collect(std::slice::from_ref(&dir)).expect("the robustness suite");
    let texts: Vec<(String, String)> =
        files.iter().map(|f| (f.display().to_string(), std::fs::read_to_string(f).expect("readable"))).collect();
    let passes = 9;
    let (mut rob, mut lit) = (Vec::new(), Vec::new());
    for _ in 0..passes {
        let t0 = Instant::now();
        for (name, text) in &texts {
            robust::check_text(name, text, &order, &Catalogue::builtins(), None).expect("the suite parses");
        }
        rob.push(t0.elapsed().as_secs_f64() * 1000.0);
        let t0 = Instant::now();
        for (name, text) in &texts {
            litmus::check_text(name, text, &order, &Catalogue::builtins()).expect("the suite parses");
        }
        lit.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    let (r, l) = (median(rob), median(lit));
    println!(
        "exact check on the paper's figures ({} files): mowgli robust {r:.2} ms, mowgli litmus {l:.2} ms: ratio \
         {:.2}x (target ≤ 2x)",
        texts.len(),
        r / l
    );
}
