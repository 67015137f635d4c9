//! `cargo bench --bench z3_spec_libs`: the Z3 engine with the built-in library
//! files (`specs/libs`, their relational form compiled to SMT, `engines/z3/rel.rs`)
//! against the explicit engine with the same files and with the Rust oracle of the
//! tests (`tests/oracle`), all in one run: the suite and client files that use sv,
//! rdmawait, msw, bal or bal_all (median of 3 passes per file), the generated
//! programs of `tests/z3_spec_libs.rs`, and obligations of the paper
//! implementations at small bounds.

use std::path::PathBuf;
use std::time::Instant;

use mowgli_check::analyses::litmus;
use mowgli_check::analyses::obligations::{self, Options};
use mowgli_check::analyses::refine::gen::{self, Bounds};
use mowgli_check::engines::explicit::Backend;
use mowgli_check::lang::implementation::Implementation;
use mowgli_libs::catalogue::Catalogue;
use mowgli_libs::orders::default_order;

#[path = "../../../tests/oracle/mod.rs"]
mod oracle;

const Z3_LIBS: [&str; 5] = ["sv", "rdmawait", "msw", "bal", "bal_all"];

/// (label, backend, with the oracle in place of the files)
const CONFIGS: [(&str, Backend, bool); 3] = [
    ("explicit oracle", Backend::Explicit, true),
    ("explicit file", Backend::Explicit, false),
    ("z3 file", Backend::Z3, false),
];

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let order = default_order();
    let ov = |with: bool| if with { oracle::overrides(&oracle::NAMES) } else { vec![] };
    // the litmus texts: suite files using a Z3 library, then generated programs
    let mut suite = Vec::new();
    for f in litmus::collect(&[root.join("specs/litmus"), root.join("specs/clients")]).expect("suite") {
        let text = std::fs::read_to_string(&f).expect("readable");
        let libs: Vec<String> = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("libraries "))
            .map(|l| l.split(',').map(|s| s.trim().to_string()).collect())
            .unwrap_or_default();
        if libs.iter().any(|l| Z3_LIBS.contains(&l.as_str()))
            && litmus::outcomes_of_text_on(&text, &order, &Catalogue::builtins(), true, Backend::Z3).is_ok()
        {
            suite.push(text);
        }
    }
    let mut generated = Vec::new();
    for (lib, b, every) in [
        ("sv", Bounds::new("sv", 2, 2, 2), 8),
        ("msw", Bounds::new("msw", 2, 2, 1), 1),
        ("bal", Bounds::new("bal", 2, 2, 2), 1),
        ("bal_all", Bounds::new("bal_all", 2, 2, 2), 1),
        ("rdmawait", Bounds::new("rdmawait", 2, 2, 1), 1),
    ] {
        let g = gen::generate(lib, &order, &b).expect("generates");
        generated.extend(g.clients.iter().step_by(every).map(|c| c.text.clone()));
    }
    let time_texts = |texts: &[String], backend: Backend, with: bool, passes: usize| -> f64 {
        let mut total = 0.0;
        for t in texts {
            let mut v: Vec<f64> = (0..passes)
                .map(|_| {
                    let t0 = Instant::now();
                    {
                        let cat: Catalogue = ov(with).into_iter().collect();
                        litmus::outcomes_of_text_on(t, &order, &cat, true, backend).expect("runs");
                    };
                    t0.elapsed().as_secs_f64() * 1000.0
                })
                .collect();
            v.sort_by(|a, b| a.total_cmp(b));
            total += v[v.len() / 2];
        }
        total
    };
    let report = |what: &str, ms: &[f64]| {
        println!(
            "{what:<44} explicit oracle {:9.1} ms | explicit file {:9.1} ms | z3 file {:9.1} ms | z3/explicit file {:.2}x",
            ms[0],
            ms[1],
            ms[2],
            ms[2] / ms[1]
        );
    };
    let ms: Vec<f64> = CONFIGS.iter().map(|&(_, b, w)| time_texts(&suite, b, w, 3)).collect();
    report(&format!("suite + clients ({} files)", suite.len()), &ms);
    let ms: Vec<f64> = CONFIGS.iter().map(|&(_, b, w)| time_texts(&generated, b, w, 1)).collect();
    report(&format!("generated programs ({})", generated.len()), &ms);
    for (imp, lib, t, n, c) in [
        ("specs/impls/isv.impl", "sv", 2, 2, 1),
        ("specs/impls/isv.impl", "sv", 1, 2, 2),
        ("specs/impls/ibal.impl", "bal", 2, 2, 2),
        ("specs/impls/imsw.impl", "msw", 2, 2, 1),
    ] {
        let mut b = Bounds::new(lib, t, n, c);
        b.self_ring = false;
        let ms: Vec<f64> = CONFIGS
            .iter()
            .map(|&(_, backend, with)| {
                let cat: Catalogue = ov(with).into_iter().collect();
                let imp = Implementation::load(&root.join(imp), &order, &cat).expect("loads");
                let clients = obligations::abstract_programs(&imp, &order, &b).expect("generates");
                let opts = Options { loop_bound: 4, backend, ..Default::default() };
                let t0 = Instant::now();
                let r = obligations::check_clients(&imp, &order, &clients, &imp.map, &opts).expect("runs");
                assert!(r.complete && r.failures.is_empty());
                t0.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        report(&format!("obligations {imp} {t}x{n}x{c}"), &ms);
    }
}
