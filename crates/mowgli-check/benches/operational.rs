//! `cargo bench --bench operational`: the operational engine (RDMA^TSO's machines,
//! crate `mowgli-machine`) against the declarative engine, in one run, on the
//! RDMA^TSO tests of `specs/litmus` (herd x86 tests included) and on the programs
//! `mowgli generate --libs rdmatso` writes for 2 threads × 2 instructions, 2 nodes,
//! 2 locations, and on every 100th program of the equivalence tests' bound, 2
//! threads × 3 instructions. Reports the median time of several passes of each engine, their
//! ratio, and the machine states explored with and without the partial-order
//! reduction. Set MOWGLI_BENCH_DIR to bench another directory.

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;
use std::time::Instant;

use mowgli_check::analyses::generate::{self, SuiteBounds, SuiteOptions};
use mowgli_check::analyses::litmus;
use mowgli_check::analyses::litmus::operational;
use mowgli_check::analyses::refine::gen::{client_name, Generator};
use mowgli_check::engines::explicit;
use mowgli_libs::orders::default_order;
use mowgli_machine::Machine;

fn rdmatso(text: &str) -> bool {
    mowgli_check::lang::herd::is_herd(text)
        || text.lines().any(|l| {
            let l = l.trim();
            l == "libraries rdmatso" || l == "libraries rdmatso_nopcie" || l == "libraries rdmatso_f1"
        })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median times (ms) of the declarative engine and of the concrete machine over
/// `passes` passes on `texts`, and the machine's states with and without the reduction.
fn bench(texts: &[String], passes: usize) -> (f64, f64, f64, usize, usize) {
    let order = default_order();
    let to = order.table("to").expect("to");
    let (mut decl, mut conc, mut simp) = (Vec::new(), Vec::new(), Vec::new());
    let (mut reduced, mut full) = (0, 0);
    for pass in 0..passes {
        let t0 = Instant::now();
        for text in texts {
            let ast = mowgli_check::lang::syntax::parse(text).expect("parses");
            let low = mowgli_check::lang::lower::lower(&ast, &order, &Catalogue::builtins()).expect("lowers");
            explicit::run(&mowgli_check::lang::lower::problem(&low, to), false).expect("runs");
        }
        decl.push(t0.elapsed().as_secs_f64() * 1000.0);
        let t0 = Instant::now();
        for text in texts {
            let (_, ex) =
                operational::machine_outcomes_text(text, &order, &Catalogue::builtins(), Machine::Concrete, None, true)
                    .expect("runs");
            if pass == 0 {
                reduced += ex.states;
            }
        }
        conc.push(t0.elapsed().as_secs_f64() * 1000.0);
        let t0 = Instant::now();
        for text in texts {
            operational::machine_outcomes_text(text, &order, &Catalogue::builtins(), Machine::Simplified, None, true)
                .expect("runs");
        }
        simp.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    for text in texts {
        let (_, ex) =
            operational::machine_outcomes_text(text, &order, &Catalogue::builtins(), Machine::Concrete, None, false)
                .expect("runs");
        full += ex.states;
    }
    (median(decl), median(conc), median(simp), reduced, full)
}

fn report(what: &str, n: usize, (d, c, s, reduced, full): (f64, f64, f64, usize, usize)) {
    println!("{what}: {n} tests");
    println!("  declarative engine:   {d:9.1} ms");
    println!("  concrete machine:     {c:9.1} ms  ({:.2}x declarative)", c / d);
    println!("  simplified machine:   {s:9.1} ms  ({:.2}x declarative)", s / d);
    println!(
        "  concrete machine states: {reduced} with the reduction, {full} without ({:.1}x fewer)",
        full as f64 / reduced.max(1) as f64
    );
}

fn main() {
    let dir = std::env::var("MOWGLI_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../specs/litmus"));
    let files = litmus::collect(std::slice::from_ref(&dir)).expect("bench directory");
    let texts: Vec<String> =
        files.iter().map(|f| std::fs::read_to_string(f).expect("readable")).filter(|t| rdmatso(t)).collect();
    report("paper suite (RDMA^TSO tests)", texts.len(), bench(&texts, 5));
    let opts = SuiteOptions {
        libs: vec!["rdmatso".into()],
        bounds: SuiteBounds { threads: 2, nodes: 2, instrs: 2, locs: 2, values: 1, min_threads: 2 },
        max_tests: None,
        jobs: 2,
        model: "the default stamp order".into(),
        partition: mowgli_check::analyses::refine::gen::Partition::ALL,
    };
    let gen = generate::generate_suite(&opts, &default_order(), &Catalogue::builtins(), &|_| {}).expect("generates").1;
    let texts: Vec<String> = gen.into_iter().map(|t| t.text).collect();
    report("generated rdmatso, 2 threads x 2 instructions, 2 nodes, 2 locations", texts.len(), bench(&texts, 1));
    // the equivalence tests' bound, 2 threads x 3 instructions: every 100th of its
    // 426,849 rdmatso programs (the whole bound is the `--ignored` test of
    // tests/operational.rs)
    let order = default_order();
    let b = SuiteBounds { threads: 2, nodes: 2, instrs: 3, locs: 2, values: 1, min_threads: 2 };
    let g = Generator::new("rdmatso", &order, &b.gen_bounds("rdmatso", &Catalogue::builtins())).expect("a generator");
    let mut texts = Vec::new();
    let mut index = 0;
    for size in 1..=g.max_size() {
        let class = g.class_par(size, 2);
        for i in 0..class.distinct() {
            if (index + i) % 100 == 0 {
                texts.push(g.render_with(&class, i, &client_name("rdmatso", index + i), "generated"));
            }
        }
        index += class.distinct();
    }
    report(
        "generated rdmatso, 2 threads x 3 instructions, 2 nodes, 2 locations (every 100th)",
        texts.len(),
        bench(&texts, 1),
    );
}
