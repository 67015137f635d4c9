//! `mowgli cells`: cell sensitivity of a stamp-order table.

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;
use std::process::ExitCode;

use super::common::{conclude, input_error, load_order, print_shard, run_inputs};
use super::progress::Progress;

/// The arguments of `mowgli cells`.
#[derive(clap::Args)]
pub struct Args {
    /// Litmus files or directories whose outcome sets are compared.
    pub paths: Vec<PathBuf>,
    /// The base order (default: LOCO Fig. 10 and RDMA Fig. 9).
    #[arg(long, value_name = "FILE")]
    pub stamp_order: Option<PathBuf>,
    /// The table whose cells are flipped.
    #[arg(long, value_name = "NAME", default_value = "to")]
    pub table: String,
    /// Only these cells (e.g. `I9,E3`).
    #[arg(long, value_name = "CELLS", value_delimiter = ',')]
    pub only: Vec<String>,
    /// What an SN cell becomes when flipped.
    #[arg(long, value_enum, default_value = "unordered")]
    pub sn_to: SnTo,
    /// Leave out the implementation checks.
    #[arg(long)]
    pub no_impls: bool,
    /// Where the implementations are.
    #[arg(long, value_name = "DIR", default_value = "specs/impls")]
    pub impls_dir: PathBuf,
    /// Add the generated clients of these libraries as candidate tests (e.g.
    /// `rdmawait,sv`), up to `--gen-threads`, `--gen-nodes`, `--gen-calls`.
    #[arg(long, value_name = "LIBS", value_delimiter = ',')]
    pub gen: Vec<String>,
    #[arg(long, value_name = "T", default_value_t = 2)]
    pub gen_threads: usize,
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub gen_nodes: usize,
    #[arg(long, value_name = "C", default_value_t = 2)]
    pub gen_calls: usize,
    /// Write the heat map here (SVG).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    /// Iterations per loop that is not a spin loop.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub loop_bound: usize,
    /// Flip only the cells (row by row, or in the order of `--only`) whose index
    /// is K-1 modulo N (1 ≤ K ≤ N); `mowgli merge` combines the `--json`
    /// reports of shards 1..N into the whole run's.
    #[arg(long, value_name = "K/N", visible_alias = "shard", value_parser = super::common::partition)]
    pub partition: Option<String>,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum SnTo {
    Unordered,
    Ordered,
}

/// `mowgli cells`: cell sensitivity of a stamp-order table.
pub fn run(a: &Args, cat: &Catalogue) -> ExitCode {
    use mowgli_check::analyses::refine::gen::{Bounds, Partition};
    use mowgli_check::analyses::sensitivity::{self, CellOptions};
    use mowgli_core::Cell;
    let Args {
        paths,
        stamp_order,
        table,
        only,
        sn_to,
        no_impls,
        impls_dir,
        gen,
        gen_threads,
        gen_nodes,
        gen_calls,
        svg,
        json,
        loop_bound,
        partition,
    } = a;
    let fail = |m: String| input_error(*json, m);
    let partition = match partition.as_deref().map(Partition::parse).transpose() {
        Ok(p) => p.unwrap_or(Partition::ALL),
        Err(e) => return fail(format!("--partition: {e}")),
    };
    let base = match load_order(stamp_order) {
        Ok(o) => o,
        Err(e) => return input_error(*json, e),
    };
    let src = stamp_order.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "the default order".into());
    let Some(t) = base.table(table) else {
        return fail(format!(
            "{src}:1:1: no table `{table}` (tables: {})",
            base.tables.keys().cloned().collect::<Vec<_>>().join(", ")
        ));
    };
    let mut cells_only = Vec::new();
    for c in only {
        match sensitivity::parse_cell(t, c) {
            Some(rc) => cells_only.push(rc),
            None => {
                return fail(format!(
                    "--only:1:1: expected a cell of table `{table}` (row letter A-{} and column 1-{}), found `{c}`",
                    (b'A' + t.kinds.len() as u8 - 1) as char,
                    t.kinds.len()
                ))
            }
        }
    }
    let mut cands = match sensitivity::corpus(paths) {
        Ok(c) => c,
        Err(e) => return fail(e.to_string()),
    };
    for lib in gen {
        let mut b = Bounds::in_catalogue(lib, cat, *gen_threads, *gen_nodes, *gen_calls);
        // values 1..=V, as `generate`'s suites draw them
        b.compare_initial = false;
        match sensitivity::generated(lib, &base, cat, &b) {
            Ok(c) => cands.extend(c),
            Err(e) => return fail(format!("--gen:1:1: {lib}: {e}")),
        }
    }
    sensitivity::smallest_first(&mut cands);
    let suite = if *no_impls {
        Vec::new()
    } else if impls_dir.is_dir() {
        sensitivity::default_suite(impls_dir)
    } else {
        return fail(format!(
            "{}:0:0: expected a directory of implementation files (`--impls-dir`)",
            impls_dir.display()
        ));
    };
    if cands.is_empty() && suite.is_empty() {
        return fail(
            "--no-impls:0:0: nothing to check: no candidate tests (no litmus paths, no --gen) and no \
             implementation checks (--no-impls)"
                .into(),
        );
    }
    let opts = CellOptions {
        table: table.clone(),
        sn_to: match sn_to {
            SnTo::Unordered => Cell::Unordered,
            SnTo::Ordered => Cell::Ordered,
        },
        only: cells_only,
        loop_bound: *loop_bound,
        partition,
    };
    let total = if opts.only.is_empty() { t.kinds.len() * t.kinds.len() } else { opts.only.len() };
    let total = (0..total).filter(|i| partition.contains(*i)).count();
    let bar = Progress::new("cells", "cells", Some(total as u64));
    let tick = |c: &sensitivity::CellReport| {
        bar.set_message(format!("{}: {}", c.cell, c.score()));
        bar.inc(1);
    };
    let rep = sensitivity::cells(&base, &cands, &suite, &opts, &tick, cat);
    bar.finish();
    let rep = match rep {
        Ok(r) => r,
        Err(e) => return fail(format!("{src}:1:1: {e}")),
    };
    if let Some(path) = svg {
        let title = format!("Cell sensitivity of `{table}` ({src})");
        if let Err(e) = std::fs::write(path, sensitivity::heat_map_svg(&rep, &title)) {
            return input_error(*json, mowgli_diag::Diagnostic::output(path, format!("cannot write: {e}")));
        }
        if !json {
            eprintln!("wrote {}", path.display());
        }
    }
    // the options that define the run: every shard of it has the same (`mowgli merge`)
    let run = serde_json::json!({
        "paths": paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "stamp_order": stamp_order.as_ref().map(|p| p.display().to_string()), "table": table, "only": only,
        "sn_to": format!("{sn_to:?}"), "no_impls": no_impls,
        "impls_dir": (!*no_impls).then(|| impls_dir.display().to_string()),
        "gen": gen, "gen_threads": gen_threads, "gen_nodes": gen_nodes, "gen_calls": gen_calls,
        "loop_bound": loop_bound,
    });
    let mut files: Vec<(&str, Option<&std::path::Path>)> = paths.iter().map(|p| ("paths", Some(p.as_path()))).collect();
    files.push(("stamp_order", stamp_order.as_deref()));
    files.push(("impls_dir", Some(impls_dir.as_path()).filter(|_| !*no_impls)));
    let inputs = match run_inputs(&files) {
        Ok(i) => i,
        Err(e) => return input_error(*json, e),
    };
    let doc = mowgli_check::analyses::merge::stamp_with(
        serde_json::to_value(&rep).unwrap_or_default(),
        "cells",
        partition,
        run,
        &inputs,
    );
    let decided = mowgli_check::analyses::merge::decide_cells(&doc);
    let errors: usize = rep.cells.iter().map(|c| c.errors.len()).sum::<usize>()
        + rep.candidate_errors.len()
        + rep.base_checks.iter().filter(|c| c.error.is_some()).count();
    if *json {
        return conclude(&decided, Some(doc));
    } else {
        for c in &rep.base_checks {
            mowgli_check::outln!(
                "base: {:32} {} ({} checked, {:.1} ms){}",
                c.check,
                if c.error.is_some() {
                    "error"
                } else if c.holds {
                    "holds"
                } else {
                    "REFUTED"
                },
                c.checked,
                c.millis,
                c.failure.as_ref().or(c.error.as_ref()).map(|f| format!(": {f}")).unwrap_or_default()
            );
        }
        for e in &rep.candidate_errors {
            mowgli_check::outln!("candidate left out: {e}");
        }
        mowgli_check::out!("{}", sensitivity::render_summary(&rep));
        print_shard(partition, "cells");
        mowgli_check::outln!(
            "summary: table `{}`: {} cells flipped, {} change a test, {} break a check, {} change nothing; {} candidate tests, {} checks; {} errors; {:.1} ms",
            rep.table,
            rep.cells.len(),
            rep.cells.iter().filter(|c| !c.changed.is_empty()).count(),
            rep.cells.iter().filter(|c| !c.broken.is_empty()).count(),
            rep.cells.iter().filter(|c| c.score() == 0).count(),
            rep.candidates,
            rep.base_checks.len(),
            errors,
            rep.millis
        );
    }
    conclude(&decided, None)
}
