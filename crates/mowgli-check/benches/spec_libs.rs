//! `cargo bench --bench spec_libs`: the paper suite and the clients (`specs/litmus`,
//! `specs/clients`) with the built-in library files of `specs/libs` (the source of
//! truth, what the tool runs), against the same libraries written in Rust (the
//! tests' independent oracle, `tests/oracle`, which the tool used before the files
//! became the source): total time of the tests that use one of them (median of
//! several passes), per library, and the candidates the engine explores (equal
//! counts: the file libraries prune as much as the Rust ones); then the
//! obligations of I_SV, I_MSW and I_BAL at 2 threads × 2 nodes × 2 calls, with the
//! files and with the oracle (specification and used libraries; one run each, CPU
//! time of this process). `SPEC_LIBS_NO_OBLIGATIONS=1` skips the obligations.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use mowgli_check::analyses::litmus;
use mowgli_check::analyses::obligations::{self, Options};
use mowgli_check::analyses::refine::gen::Bounds;
use mowgli_check::lang::implementation::Implementation;
use mowgli_libs::catalogue::{Catalogue, Factory};
use mowgli_libs::orders::default_order;
use mowgli_libs::registry;

#[path = "../../../tests/oracle/mod.rs"]
mod oracle;

const TWINS: [&str; 8] = oracle::NAMES;

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let order = default_order();
    let specs: BTreeMap<String, Factory> = oracle::overrides(&TWINS).into_iter().collect();
    let files = litmus::collect(&[root.join("specs/litmus"), root.join("specs/clients")]).expect("suite");
    // (name, text, oracle libraries used)
    let mut tests = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable");
        let libs: Vec<String> = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("libraries "))
            .map(|l| l.split(',').map(|s| s.trim().to_string()).collect())
            .unwrap_or_default();
        let used: Vec<&str> = TWINS.iter().copied().filter(|t| libs.iter().any(|l| l == t)).collect();
        // a library known only from its file (`specs/libs/lock.lib`) is no built-in
        let builtin = libs.iter().all(|l| registry::KNOWN.contains(&l.as_str()));
        if !used.is_empty() && builtin {
            tests.push((f.display().to_string(), text, used));
        }
    }
    let passes = 9;
    let run = |files: bool| -> (Vec<f64>, u64) {
        let mut per = vec![Vec::new(); tests.len()];
        let mut cand = 0;
        for pass in 0..passes {
            for (i, (name, text, used)) in tests.iter().enumerate() {
                // files: the built-ins; otherwise the oracle in their place
                let ov: Vec<(String, Factory)> =
                    if files { vec![] } else { used.iter().map(|n| (n.to_string(), specs[*n].clone())).collect() };
                let t0 = Instant::now();
                let r = {
                    let cat: Catalogue = ov.into_iter().collect();
                    litmus::check_text(name, text, &order, &cat).expect("parses")
                };
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
        "{} tests using a library the oracle has (specs/litmus, specs/clients); per test the median of {passes} passes",
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
    if std::env::var_os("SPEC_LIBS_NO_OBLIGATIONS").is_some() {
        return;
    }
    for (imp, lib) in
        [("specs/impls/isv.impl", "sv"), ("specs/impls/imsw.impl", "msw"), ("specs/impls/ibal.impl", "bal")]
    {
        let mut b = Bounds::new(lib, 2, 2, 2);
        b.self_ring = false;
        let mut row = Vec::new();
        for files in [false, true] {
            let ov = if files { vec![] } else { oracle::overrides(&TWINS) };
            let (ms, programs, execs) = {
                let cat: Catalogue = ov.into_iter().collect();
                let name = imp;
                let imp = Implementation::load(&root.join(imp), &order, &cat).expect("loads");
                let t0 = cpu_seconds();
                let clients = obligations::abstract_programs(&imp, &order, &b).expect("generates");
                let opts = Options { loop_bound: 4, ..Default::default() };
                let r = obligations::check_clients(&imp, &order, &clients, &imp.map, &opts).expect("runs");
                assert!(r.complete && r.failures.is_empty(), "{name}");
                ((cpu_seconds() - t0) * 1000.0, clients.len(), r.executions)
            };
            row.push((ms, programs, execs));
        }
        println!(
            "obligations {imp} 2x2x2: rust {:9.1} ms  file {:9.1} ms  ratio {:.2}x  ({} abstract programs, {} / {} implementation executions)",
            row[0].0,
            row[1].0,
            row[1].0 / row[0].0,
            row[1].1,
            row[0].2,
            row[1].2
        );
    }
}

#[path = "common/proc_stat.rs"]
mod proc_stat;
use proc_stat::cpu_seconds;
