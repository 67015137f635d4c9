//! `cargo bench --bench pivot`: coreRMA pivot generation (`mowgli pivot`) measured.
//!
//! 1. The per-rule enumeration against the plain one (every program, every rule) at
//!    sizes both reach quickly (1 process up to 8 actions, 2 processes up to 9): the
//!    same tests, and the time each takes.
//! 2. The default run: every row of Table 6 at its own size (7 to 12 actions), the
//!    issue's measure (under 10 minutes on two cores).
//!
//! Tests are counted in their rows (the plain run also finds, and drops, tests above a
//! row's size). Times are wall and CPU (the process's, all worker threads; CPU is what the shared
//! machine's load does not change). `MOWGLI_BENCH_QUICK=1` skips part 2.

use mowgli_check::analyses::pivot::{self, PivotOptions, PivotReport};

fn run(procs: Option<usize>, size: Option<usize>, plain: bool) -> PivotReport {
    let rows = pivot::table6().into_iter().filter(|r| procs.is_none_or(|p| r.procs == p)).collect();
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    pivot::generate(&PivotOptions {
        rows,
        max_size: size,
        max_locs: 3,
        jobs,
        keep: false,
        plain,
        non_atomic: false,
        memory: false,
    })
}

fn line(what: &str, r: &PivotReport) {
    println!(
        "  {what:<34} {:>8} programs {:>7} tests in rows {:>8.1} s wall {:>8.1} s CPU",
        r.programs,
        r.rows.iter().map(|x| x.tests).sum::<usize>(),
        r.millis / 1e3,
        r.cpu_millis / 1e3
    );
}

fn main() {
    println!("per-rule shapes vs the plain enumeration:");
    for (procs, size) in [(1, 8), (2, 9)] {
        let plain = run(Some(procs), Some(size), true);
        let shaped = run(Some(procs), Some(size), false);
        line(&format!("{procs} process(es) up to {size}, plain"), &plain);
        line(&format!("{procs} process(es) up to {size}, per rule"), &shaped);
        let counts = |r: &PivotReport| r.rows.iter().map(|x| (x.tests, x.outputs)).collect::<Vec<_>>();
        assert_eq!(counts(&plain), counts(&shaped), "the same tests per row");
    }
    if std::env::var("MOWGLI_BENCH_QUICK").is_ok() {
        return;
    }
    println!("default run (every row at its Table 6 size):");
    let r = run(None, None, false);
    line("Table 6 sizes", &r);
    for x in &r.rows {
        println!(
            "    {:<6} {} proc size {:>2}: {:>6} tests {:>7} outputs {:>9.3} ms/test (CPU)",
            x.row.rule, x.row.procs, x.size, x.tests, x.outputs, x.cpu_ms_per_test
        );
    }
}
