//! `cargo bench --bench corerma_lib`: coreRMA as a file (`specs/libs/corerma.lib`,
//! `corerma_noir.lib`) against the Rust library `corerma`: the 23 tests of
//! `specs/litmus/corerma` (per test the median of several passes), the pivot
//! enumerator's programs (every access atomic) and their atomicity annotations
//! (one pass), with the candidates the engine explores on each side.

use std::path::PathBuf;
use std::time::Instant;

use mowgli_check::analyses::litmus;
use mowgli_check::analyses::pivot::{self, Program};
use mowgli_libs::catalogue::{Catalogue, Factory, SpecFactory};
use mowgli_libs::orders::default_order;

fn annotate(text: &str, bits: usize) -> String {
    let mut k = 0;
    let mut out = String::new();
    for l in text.lines() {
        let t = l.trim_start();
        let t = t.split_once(" = ").map_or(t, |(_, r)| r);
        let a = match t.split('(').next().unwrap_or("") {
            "Read" | "Write" => 1,
            "Get" | "Put" => 2,
            "Rga" => 3,
            "Cas" => 4,
            _ => 0,
        };
        if a == 0 {
            out += l;
        } else {
            let s: String = (0..a).map(|i| if bits & (1 << (k + i)) != 0 { 'n' } else { 'a' }).collect();
            k += a;
            let (head, tail) = l.split_once('(').unwrap_or((l, ""));
            out += &format!("{head}_{s}({tail}");
        }
        out.push('\n');
    }
    out
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let order = default_order();
    let files: Vec<(String, Factory)> = ["corerma", "corerma_noir"]
        .iter()
        .map(|n| {
            let s = mowgli_spec::parse_file(&root.join(format!("specs/libs/{n}.lib"))).expect("library file parses");
            (n.to_string(), s.factory())
        })
        .collect();
    let time = |texts: &[String], file: bool, passes: usize| -> (f64, u64) {
        let mut per = vec![Vec::new(); texts.len()];
        let mut cand = 0;
        for pass in 0..passes {
            for (i, text) in texts.iter().enumerate() {
                let ov = if file { files.clone() } else { vec![] };
                let t0 = Instant::now();
                let r = {
                    let cat: Catalogue = ov.into_iter().collect();
                    litmus::check_text("t", text, &order, &cat).expect("parses")
                };
                per[i].push(t0.elapsed().as_secs_f64() * 1000.0);
                if pass == 0 {
                    cand += r.stats.candidates;
                }
            }
        }
        let total = per
            .into_iter()
            .map(|mut v| {
                v.sort_by(|a, b| a.total_cmp(b));
                v[v.len() / 2]
            })
            .sum();
        (total, cand)
    };
    let report = |what: &str, texts: &[String], passes: usize| {
        let (r, rc) = time(texts, false, passes);
        let (f, fc) = time(texts, true, passes);
        println!(
            "{what}: {} tests; rust {r:9.2} ms ({rc} candidates), file {f:9.2} ms ({fc} candidates), file/rust {:.2}x",
            texts.len(),
            f / r
        );
    };
    let suite: Vec<String> = litmus::collect(&[root.join("specs/litmus/corerma")])
        .expect("suite")
        .iter()
        .map(|f| std::fs::read_to_string(f).expect("readable"))
        .collect();
    report("specs/litmus/corerma (median of 9 passes)", &suite, 9);
    let mut gen = Vec::new();
    for (procs, size) in [(1, 6), (2, 8)] {
        for s in 1..=size {
            pivot::programs(procs, s, 2, &mut |p: Program| gen.push(p.litmus("t", "", "corerma")));
        }
    }
    report("pivot programs, 1 process ≤ 6 actions, 2 processes ≤ 8 (one pass)", &gen, 1);
    let mut ann = Vec::new();
    for (procs, size) in [(1, 4), (2, 6)] {
        for s in 1..=size {
            pivot::programs(procs, s, 2, &mut |p: Program| {
                let text = p.litmus("t", "", "corerma");
                let n: usize = text.matches('(').count() * 4;
                for bits in 0..1usize << n.min(12) {
                    let a = annotate(&text, bits);
                    if !ann.contains(&a) {
                        ann.push(a);
                    }
                }
            });
        }
    }
    report("their atomicity annotations, 1 process ≤ 4 actions, 2 processes ≤ 6 (one pass)", &ann, 1);
}
