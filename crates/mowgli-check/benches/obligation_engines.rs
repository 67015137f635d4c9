//! `cargo bench --bench obligation_engines`: the obligations of I_SV and I_MSW
//! under the explicit engine, Z3 and `auto`, one after the other in one process (so
//! their ratios are measured under the same load), with the Z3 / explicit ratio per
//! program size (total calls) on the same programs: the crossover curve of
//! docs/obligations.md. The bound: 2 threads × 2 nodes × `MOWGLI_BENCH_CALLS`
//! calls (default 1; 2 is the bound, minutes).

use mowgli_libs::catalogue::Catalogue;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use mowgli_check::analyses::obligations::{self, Options, Report};
use mowgli_check::analyses::refine::gen::Bounds;
use mowgli_check::engines::explicit::Backend;
use mowgli_check::lang::implementation::Implementation;
use mowgli_libs::orders::default_order;

fn run(imp: &Implementation, clients: &[obligations::Program], backend: Backend, auto: bool) -> (Report, f64) {
    let order = default_order();
    let opts = Options { loop_bound: 4, backend, auto, ..Default::default() };
    let t = Instant::now();
    let r = obligations::check_clients(imp, &order, clients, &imp.map, &opts).expect("runs");
    (r, t.elapsed().as_secs_f64())
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let calls: usize = std::env::var("MOWGLI_BENCH_CALLS").ok().and_then(|c| c.parse().ok()).unwrap_or(1);
    let order = default_order();
    for (file, lib) in [("specs/impls/isv.impl", "sv"), ("specs/impls/imsw.impl", "msw")] {
        let imp = Implementation::load(&root.join(file), &order, &Catalogue::builtins()).expect("loads");
        let clients = obligations::abstract_programs(&imp, &order, &Bounds::new(lib, 2, 2, calls)).expect("generates");
        let (e, te) = run(&imp, &clients, Backend::Explicit, false);
        let (z, tz) = run(&imp, &clients, Backend::Z3, false);
        let (a, ta) = run(&imp, &clients, Backend::Explicit, true);
        assert_eq!(e.failures.len(), z.failures.len(), "{file}: the engines disagree");
        println!(
            "{file} 2×2×{calls}: {} programs; explicit {te:.2} s, z3 {tz:.2} s ({:.1} ×), auto {ta:.2} s ({:.2} ×; {:?})",
            clients.len(),
            tz / te,
            ta / te,
            a.split.as_ref().map(|s| (s.explicit_programs, s.z3_programs))
        );
        // per size (the third field of a generated name: abs-LIB-SIZE-I)
        let mut by: BTreeMap<usize, (usize, f64, f64, usize)> = BTreeMap::new();
        for (pe, pz) in e.programs.iter().zip(&z.programs) {
            let size = pe.name.split('-').nth(2).and_then(|s| s.parse().ok()).unwrap_or(0);
            let row = by.entry(size).or_default();
            row.0 += 1;
            row.1 += pe.millis;
            row.2 += pz.millis;
            row.3 += usize::from(pz.millis < pe.millis);
        }
        for (size, (n, me, mz, wins)) in by {
            println!(
                "  {size} calls: {n} programs, explicit {me:.0} ms, z3 {mz:.0} ms ({:.1} ×), z3 faster on {wins}",
                mz / me.max(1e-3)
            );
        }
    }
}
