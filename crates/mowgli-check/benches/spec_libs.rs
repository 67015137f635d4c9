//! `cargo bench --bench spec_libs`: the paper suite and the clients (`specs/litmus`,
//! `specs/clients`) with the library files of `specs/libs` in place of their Rust
//! twins, against the Rust libraries: total time of the tests that use a twin
//! (median of several passes), per library, and the candidates the engine explores
//! (equal counts: the file libraries prune as much as the Rust ones).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use mowgli_check::analyses::litmus;
use mowgli_libs::orders::default_order;
use mowgli_libs::registry::{self, Factory};

const TWINS: [&str; 8] = ["sv", "rdmawait", "msw", "bal", "bal_all", "rbl", "rbl_weak", "rbl_rfe"];

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let order = default_order();
    let specs: BTreeMap<&str, Factory> = TWINS
        .iter()
        .map(|n| {
            let s = mowgli_spec::parse_file(&root.join(format!("specs/libs/{n}.lib"))).expect("library file parses");
            (*n, s.factory())
        })
        .collect();
    let files = litmus::collect(&[root.join("specs/litmus"), root.join("specs/clients")]).expect("suite");
    // (name, text, twins used)
    let mut tests = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable");
        let libs: Vec<String> = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("libraries "))
            .map(|l| l.split(',').map(|s| s.trim().to_string()).collect())
            .unwrap_or_default();
        let used: Vec<&str> = TWINS.iter().copied().filter(|t| libs.iter().any(|l| l == t)).collect();
        if !used.is_empty() {
            tests.push((f.display().to_string(), text, used));
        }
    }
    let passes = 9;
    let run = |files: bool| -> (Vec<f64>, u64) {
        let mut per = vec![Vec::new(); tests.len()];
        let mut cand = 0;
        for pass in 0..passes {
            for (i, (name, text, used)) in tests.iter().enumerate() {
                let ov: Vec<(String, Factory)> =
                    if files { used.iter().map(|n| (n.to_string(), specs[n].clone())).collect() } else { vec![] };
                let t0 = Instant::now();
                let r = registry::with_overrides(ov, || litmus::check_text(name, text, &order).expect("parses"));
                per[i].push(t0.elapsed().as_secs_f64() * 1000.0);
                if pass == 0 {
                    cand += r.stats.candidates;
                }
            }
        }
        let med = per
            .into_iter()
            .map(|mut v| {
                v.sort_by(|a, b| a.total_cmp(b));
                v[v.len() / 2]
            })
            .collect();
        (med, cand)
    };
    let (rust, rc) = run(false);
    let (file, fc) = run(true);
    let sum = |v: &[f64], pick: &dyn Fn(usize) -> bool| (0..v.len()).filter(|&i| pick(i)).map(|i| v[i]).sum::<f64>();
    println!(
        "{} tests using a twin (specs/litmus, specs/clients); per test the median of {passes} passes",
        tests.len()
    );
    let all = |_: usize| true;
    let (r, f) = (sum(&rust, &all), sum(&file, &all));
    println!("all:      rust {r:8.2} ms  file {f:8.2} ms  ratio {:.2}x", f / r);
    for lib in TWINS {
        let pick = |i: usize| tests[i].2.contains(&lib);
        let n = (0..tests.len()).filter(|&i| pick(i)).count();
        if n == 0 {
            continue;
        }
        let (r, f) = (sum(&rust, &pick), sum(&file, &pick));
        println!("{lib:9} rust {r:8.2} ms  file {f:8.2} ms  ratio {:.2}x  ({n} tests)", f / r);
    }
    println!("candidates explored: rust {rc}, file {fc}");
}
