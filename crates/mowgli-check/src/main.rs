//! The `mowgli` command-line tool.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use mowgli_check::litmus;
use mowgli_core::StampOrder;
use mowgli_libs::orders;

#[derive(Parser)]
#[command(name = "mowgli", version, about = "Checks concurrent libraries over RDMA with the Mowgli framework")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run litmus tests: print every reachable outcome and check each expectation.
    Litmus {
        /// Litmus files or directories (searched recursively for *.litmus).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Machine-readable output (one JSON document).
        #[arg(long)]
        json: bool,
        /// Report candidates explored, consistent executions and time per test.
        #[arg(long)]
        stats: bool,
        /// Run under another stamp order (a file with table `to`, optionally `ippo`/`oppo`).
        #[arg(long, value_name = "FILE")]
        stamp_order: Option<PathBuf>,
        /// Print only failures and the summary.
        #[arg(long, short)]
        quiet: bool,
        /// Write the counterexample execution of every failing `forbidden`
        /// expectation as a Graphviz file `DIR/TEST-lLINE.dot`.
        #[arg(long, value_name = "DIR")]
        dot: Option<PathBuf>,
    },
    /// Bounded refinement (LOCO Def. 3.10): every outcome of the implementation on a
    /// client must be an outcome of the specification.
    Refine {
        /// The implementation file (`specs/impls/*.impl`).
        implementation: PathBuf,
        /// Client litmus files or directories over the implemented library.
        #[arg(long, value_name = "PATH", required = true, num_args = 1..)]
        clients: Vec<PathBuf>,
        /// Machine-readable output (one JSON document).
        #[arg(long)]
        json: bool,
        /// Run under another stamp order.
        #[arg(long, value_name = "FILE")]
        stamp_order: Option<PathBuf>,
        /// Iterations per loop that is not a spin loop.
        #[arg(long, default_value_t = 4)]
        loop_bound: usize,
        /// Write the counterexample of every failing client as `DIR/CLIENT.dot`.
        #[arg(long, value_name = "DIR")]
        dot: Option<PathBuf>,
    },
    /// Print the stamp order in force (LOCO Fig. 10 and RDMA Fig. 9 by default).
    StampOrder {
        #[arg(long, value_name = "FILE")]
        stamp_order: Option<PathBuf>,
    },
}

fn load_order(path: &Option<PathBuf>) -> Result<StampOrder, String> {
    let mut order = orders::default_order();
    if let Some(p) = path {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}:0:0: cannot read: {e}", p.display()))?;
        let user =
            StampOrder::parse(&text).map_err(|e| format!("{}:{}:{}: {}", p.display(), e.line, e.column, e.message))?;
        if user.table("to").is_none() && user.table("ippo").is_none() && user.table("oppo").is_none() {
            return Err(format!("{}:1:1: expected a table `to`, `ippo`, `oppo` or `oppo_nopcie`", p.display()));
        }
        order.tables.extend(user.tables);
    }
    Ok(order)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Litmus { paths, json, stats, stamp_order, quiet, dot } => {
            let order = match load_order(&stamp_order) {
                Ok(o) => o,
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::from(2);
                }
            };
            let files = match litmus::collect(&paths) {
                Ok(f) => f,
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::from(2);
                }
            };
            let start = Instant::now();
            let mut reports = Vec::new();
            let mut errors = Vec::new();
            for f in &files {
                match litmus::check_file(f, &order) {
                    Ok(r) => {
                        if !json && (!quiet || !r.all_ok()) {
                            print!("{}", litmus::render(&r, stats));
                        }
                        if let Some(dir) = &dot {
                            for e in r.expectations.iter().filter(|e| !e.passed()) {
                                let Some(d) = &e.dot else { continue };
                                let path = dir.join(format!("{}-l{}.dot", r.name, e.line));
                                let written = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, d));
                                match written {
                                    Ok(()) => eprintln!("wrote {}", path.display()),
                                    Err(err) => {
                                        eprintln!("{}: cannot write: {err}", path.display());
                                        errors.push(format!("{}: cannot write: {err}", path.display()));
                                    }
                                }
                            }
                        }
                        reports.push(r);
                    }
                    Err(e) => {
                        eprintln!("{e}");
                        errors.push(e.to_string());
                    }
                }
            }
            let total = start.elapsed();
            let nexp: usize = reports.iter().map(|r| r.expectations.len()).sum();
            let nfail: usize = reports.iter().map(|r| r.expectations.iter().filter(|e| !e.passed()).count()).sum();
            let nknown: usize =
                reports.iter().map(|r| r.expectations.iter().filter(|e| e.status() == "known").count()).sum();
            if json {
                let doc = serde_json::json!({
                    "tests": reports,
                    "errors": errors,
                    "summary": {
                        "tests": reports.len(),
                        "expectations": nexp,
                        "ok": nexp - nfail - nknown,
                        "known_disagreements": nknown,
                        "failed": nfail,
                        "malformed": errors.len(),
                        "millis": total.as_secs_f64() * 1000.0,
                    }
                });
                println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
            } else {
                let cand: u64 = reports.iter().map(|r| r.stats.candidates).sum();
                let naive: f64 = reports.iter().map(|r| r.stats.naive).sum();
                println!(
                    "summary: {} tests, {} expectations: {} ok, {} known disagreements (documented), {} FAIL, {} malformed{}",
                    reports.len(),
                    nexp,
                    nexp - nfail - nknown,
                    nknown,
                    nfail,
                    errors.len(),
                    if stats {
                        format!(
                            "; {} candidates explored vs {:.0} naive ({:.1}x fewer); {:.1} ms",
                            cand,
                            naive,
                            naive / (cand.max(1) as f64),
                            total.as_secs_f64() * 1000.0
                        )
                    } else {
                        String::new()
                    }
                );
            }
            if !errors.is_empty() {
                ExitCode::from(2)
            } else if nfail > 0 {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Cmd::Refine { implementation, clients, json, stamp_order, loop_bound, dot } => {
            refine(&implementation, &clients, json, &stamp_order, loop_bound, &dot)
        }
        Cmd::StampOrder { stamp_order } => match load_order(&stamp_order) {
            Ok(o) => {
                for t in o.tables.values() {
                    println!("{t}");
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::from(2)
            }
        },
    }
}

fn refine(
    implementation: &std::path::Path,
    clients: &[PathBuf],
    json: bool,
    stamp_order: &Option<PathBuf>,
    loop_bound: usize,
    dot: &Option<PathBuf>,
) -> ExitCode {
    let order = match load_order(stamp_order) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let imp = match mowgli_check::impls::Implementation::load(implementation, &order) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let files = match litmus::collect(clients) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    let mut skipped = 0;
    for f in &files {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                errors.push(format!("{}:0:0: cannot read: {e}", f.display()));
                continue;
            }
        };
        match mowgli_check::impls::refine::refine_client(&imp, &order, &f.display().to_string(), &text, loop_bound) {
            Ok(r) if r.verdict == "skipped" => skipped += 1,
            Ok(r) => {
                if !json {
                    println!(
                        "{:4}  {} ({}): {} implementation outcomes, {} specification outcomes{}",
                        r.verdict,
                        r.name,
                        r.file,
                        r.impl_outcomes,
                        r.spec_outcomes,
                        if r.bounded { " [bounded: a loop reached the unrolling bound]" } else { "" }
                    );
                    if r.impl_outcomes == 0 {
                        println!(
                            "      warning: the implementation has no terminating execution on this client (vacuous)"
                        );
                    }
                    if let Some(m) = &r.stuck_msg {
                        println!(
                            "      note: {} unfoldings of the implementation stopped at an error, first: {m}",
                            r.stuck
                        );
                    }
                    if let Some(c) = &r.counterexample {
                        let o: Vec<String> = c.outcome.iter().map(|(k, v)| format!("{k}={v}")).collect();
                        println!("      the implementation reaches {}, which the specification forbids:", o.join("; "));
                        for l in c.execution.lines() {
                            println!("        {l}");
                        }
                    }
                }
                if let (Some(dir), Some(c)) = (dot, &r.counterexample) {
                    let path = dir.join(format!("{}.dot", r.name));
                    if let Err(e) = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, &c.dot)) {
                        errors.push(format!("{}: cannot write: {e}", path.display()));
                    }
                }
                reports.push(r);
            }
            Err(e) => {
                eprintln!("{e}");
                errors.push(e.to_string());
            }
        }
    }
    let failed = reports.iter().filter(|r| r.verdict != "ok").count();
    if json {
        let doc = serde_json::json!({
            "implementation": imp.name,
            "implements": imp.implements,
            "uses": imp.uses,
            "clients": reports,
            "errors": errors,
            "summary": { "clients": reports.len(), "ok": reports.len() - failed, "failed": failed, "errors": errors.len(),
                         "skipped": skipped,
                         "millis": start.elapsed().as_secs_f64() * 1000.0 }
        });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        println!(
            "summary: implementation `{}` of `{}` over {}: {} clients, {} ok, {} FAIL, {} errors ({} tests skipped: they do not use `{}`); {:.1} ms",
            imp.name,
            imp.implements,
            imp.uses.join(", "),
            reports.len(),
            reports.len() - failed,
            failed,
            errors.len(),
            skipped,
            imp.implements,
            start.elapsed().as_secs_f64() * 1000.0
        );
    }
    if !errors.is_empty() {
        ExitCode::from(2)
    } else if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
