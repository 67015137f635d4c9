//! `mowgli trace FILE --outcome COND`: a shortest run of RDMA^TSO's operational
//! machine (crate `mowgli-machine`) whose final state has the outcome, step by
//! step (rule, thread or queue pair, the state after it), and the execution
//! graph the run builds (getEG, RDMA paper App. D) as text and optionally DOT.
//! When no run reaches the outcome, the declarative engine says why (no
//! consistent execution has it), or, if it disagrees, shows its execution.
//!
//! Verdicts (docs/user-guide.md, "mowgli trace"): `verified` (exit 0) when a run
//! reaches the outcome; `counterexample` (exit 1) when none does — the claim
//! "this outcome is reachable" fails — or when the two engines disagree (the
//! message says which); `error` (exit 2) for unreadable or malformed input.

use mowgli_libs::catalogue::Catalogue;
use std::path::PathBuf;

use mowgli_core::{Related, StampOrder, Variant};
use mowgli_machine::{Explorer, Machine, Options, Rule};

use crate::analyses::verdict::{Decided, Verdict};
use crate::analyses::{litmus, reason};
use crate::engines::explicit;
use crate::lang::{lower, syntax};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MachineArg {
    /// Six buffers per queue pair (RDMA paper §3.2, Fig. 7).
    Concrete,
    /// Three buffers per queue pair (RDMA paper §3.3, App. B).
    Simplified,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

#[derive(clap::Args, Debug, Clone)]
pub struct TraceArgs {
    /// The litmus test (libraries rdmatso, rdmatso_nopcie, rdmatso_f1, or with remote atomics rdmatso_rmw, rdmatso_rmw_nopcie, rdmatso_rmw_glob; or a herd7 x86 test).
    pub file: PathBuf,
    /// The outcome to reach, as a litmus condition, e.g. `T1:a = 0 /\ T2:b = 0`.
    #[arg(long)]
    pub outcome: String,
    /// The machine: `concrete` (six buffers) or `simplified` (three).
    #[arg(long, value_enum, default_value = "concrete")]
    pub machine: MachineArg,
    /// The PCIe guarantee `on` or `off` (default: as the test's library says;
    /// `off` runs an `rdmatso` test as `rdmatso_nopcie`).
    #[arg(long, value_enum)]
    pub pcie: Option<OnOff>,
    /// Also write the execution graph as Graphviz DOT to this file.
    #[arg(long, value_name = "FILE")]
    pub dot: Option<PathBuf>,
    /// Explore without the partial-order reduction (same shortest length, more states).
    #[arg(long)]
    pub no_reduce: bool,
    /// Run under another stamp order (the declarative engine's `ippo`/`oppo`).
    #[arg(long, value_name = "FILE")]
    pub stamp_order: Option<PathBuf>,
}

fn error(msg: String) -> (String, Decided) {
    eprintln!("{msg}");
    (String::new(), Decided::new(Verdict::Error, msg.lines().next().unwrap_or_default().to_string()))
}

/// Runs `mowgli trace`: the text to print and the verdict.
pub fn run(a: &TraceArgs, order: &StampOrder, cat: &Catalogue) -> (String, Decided) {
    let file = a.file.display().to_string();
    let text = match mowgli_diag::read_source(&a.file, &file) {
        Ok(t) => t,
        Err(d) => return error(d.to_string()),
    };
    let mut ast = match syntax::parse(&text) {
        Ok(t) => t,
        Err(e) => return error(e.in_file(&file, &text).to_string()),
    };
    // the outcome: a condition parsed as the `expect` line of a test of its own,
    // its names resolved against this test; its errors are shown in the option's
    // text (`--outcome:1:COLUMN`)
    const PREFIX: &str = "expect allowed ";
    let probe = format!("test outcome\n{PREFIX}{}\n", a.outcome);
    let in_outcome = |e: crate::lang::InputError| {
        let col = if e.line == 2 { e.col.saturating_sub(PREFIX.len()).max(1) } else { 1 };
        let mut d = e;
        (d.line, d.col) = (1, col);
        d.in_file("--outcome", &a.outcome).to_string()
    };
    let cond = match syntax::parse(&probe) {
        Ok(mut p) if p.expects.len() == 1 => p.expects.remove(0),
        Ok(_) => return error(in_outcome(crate::lang::InputError::new(Default::default(), "expected one condition"))),
        Err(e) => return error(in_outcome(e)),
    };
    // the test's own errors first, so that they are not blamed on --outcome
    ast.expects.clear();
    if let Err(e) = lower::lower(&ast, order, cat) {
        return error(e.in_file(&file, &text).to_string());
    }
    ast.expects = vec![cond];
    // `--pcie`: each library is switched to the variant it declares with (without)
    // the in-order path from remote operations to memory
    if let Some(p) = a.pcie {
        let v = if p == OnOff::Off { Variant::UnorderedPath } else { Variant::OrderedPath };
        for l in &mut ast.libraries {
            let Ok(lib) = cat.library(&l.text, order) else { continue };
            match lib.variant(v) {
                Related::Named(n) => l.text = n,
                Related::Lacks => {
                    let (word, has) = if p == OnOff::Off { ("off", "has") } else { ("on", "lacks") };
                    let msg = format!("--pcie {word}: {} {has} the PCIe guarantee", l.text);
                    let d = crate::lang::InputError::new(l.pos, msg);
                    return error(d.with_span(l.text.len()).in_file(&file, &text).to_string());
                }
                Related::Itself | Related::Unrelated => {}
            }
        }
    }
    let low = match lower::lower(&ast, order, cat) {
        Ok(l) => l,
        Err(e) => return error(in_outcome(e)),
    };
    let want = &low.expects[0].cond;
    let libs = crate::analyses::litmus::operational::libs_of(&low);
    let prog = crate::analyses::litmus::operational::program(&low, &libs);
    let machine = match a.machine {
        MachineArg::Concrete => Machine::Concrete,
        MachineArg::Simplified => Machine::Simplified,
    };
    // errors about the test as a whole: at its `libraries` line (else its first)
    let at_test = |msg: String| {
        let pos = ast.libraries_pos.unwrap_or(syntax::Pos { line: 1, col: 1 });
        crate::lang::InputError::new(pos, msg).in_file(&file, &text).to_string()
    };
    // a limit of the machine or the engine: nothing is known of the outcome
    let cut = |msg: String| {
        eprintln!("{msg}");
        (String::new(), Decided::new(Verdict::Inconclusive, msg))
    };
    let ex = match Explorer::new(&prog, machine, None) {
        Ok(e) => e,
        Err(e) => return error(at_test(e.to_string())),
    };
    let opts = Options { machine, pcie: None, reduce: !a.no_reduce, ..Options::default() };
    let mut pred =
        |o: &mowgli_machine::Outcome| want.holds(&explicit::Outcome { regs: o.regs.clone(), finals: o.finals.clone() });
    let found = match ex.shortest_run(&opts, &mut pred) {
        Ok(f) => f,
        Err(e) if e.is_limit() => return cut(format!("{file}: {e}")),
        Err(e) => return error(at_test(e.to_string())),
    };
    // the declarative engine on the same test, for the reason or a cross-check
    let to = match order.table("to") {
        Some(t) => t,
        None => return error(at_test("the stamp order has no table `to`".into())),
    };
    let decl = match explicit::run(&lower::problem(&low, to), true) {
        Ok(r) => r,
        Err(e) if e.is_limit() => return cut(format!("{file}: {e}")),
        Err(e) => return error(at_test(e.to_string())),
    };
    let decl_hit = decl.outcomes.iter().find(|(o, _)| want.holds(o));
    let mname = match machine {
        Machine::Concrete => "concrete machine (six buffers per queue pair, RDMA paper §3.2)",
        Machine::Simplified => "simplified machine (three buffers per queue pair, RDMA paper §3.3)",
    };
    let pcie = if ex.pcie { "with" } else { "without" };
    let mut out = format!("trace of {} ({file}) to `{}` on the {mname}, {pcie} PCIe\n", low.name, a.outcome.trim());
    let Some(run) = found else {
        out += "  no run of the machine reaches this outcome\n";
        return match decl_hit {
            None => {
                out += &format!(
                    "  no consistent execution (RDMA paper Def. 4.4) has it: the declarative engine checked {} plain executions ({} candidate witnesses) and every consistent one has another outcome\n",
                    decl.stats.plain, decl.stats.candidates
                );
                let prob = lower::problem(&low, to);
                let holds = |o: &explicit::Outcome| want.holds(o);
                match reason::reasons(&prob, &holds, reason::TRACE_BUDGET, 3) {
                    Ok(Some(r)) => out += &reason::render(&low, &r, &low.lib_names.join(", ")),
                    Ok(None) => out += "  (the cycles are shown for programs over one library only)\n",
                    Err(e) if e.is_limit() => return cut(format!("{file}: {e}")),
                    Err(e) => return error(at_test(e.to_string())),
                }
                out += &format!("  reachable outcomes ({}):\n", decl.outcomes.len());
                for o in decl.outcomes.keys() {
                    out += &format!("    {}\n", crate::analyses::litmus::operational::show_full(&low, o));
                }
                (out, Decided::new(Verdict::Counterexample, "the outcome is unreachable (both engines agree)"))
            }
            Some((o, w)) => {
                out +=
                    "  BUT the declarative engine has a consistent execution with it (the engines disagree: a bug):\n";
                if let Some(w) = w {
                    for l in litmus::render_execution(&low, o, w).lines() {
                        out += &format!("    {l}\n");
                    }
                }
                (out, Decided::new(Verdict::Counterexample, "the engines disagree on this outcome"))
            }
        };
    };
    out += &format!("  a shortest run: {} transitions (buffers oldest first)\n", run.steps.len());
    out += "  initial state:\n";
    out += &ex.show_state(&ex.initial());
    let w = &low.world;
    let mut prev = ex.initial();
    for (i, (st, s)) in run.steps.iter().enumerate() {
        let who = match st.node {
            Some(n) if !matches!(st.rule, Rule::P) => format!("qp {}->{n}", w.threads[st.thread].name),
            _ => w.threads[st.thread].name.clone(),
        };
        let call = if matches!(
            st.rule,
            Rule::LW
                | Rule::LR
                | Rule::CASS
                | Rule::CASF
                | Rule::F
                | Rule::Get
                | Rule::Put
                | Rule::RF
                | Rule::P
                | Rule::SetOp
        ) {
            let node = &ex.tries[st.thread].nodes[prev.pc[st.thread] as usize];
            node.call
                .as_ref()
                .map(|c| {
                    let args: Vec<String> = c.args.iter().map(|v| w.show(v)).collect();
                    format!("   [{}({})]", libs[c.lib].methods()[c.method].name, args.join(", "))
                })
                .unwrap_or_default()
        } else {
            String::new()
        };
        let at = if matches!(
            st.rule,
            Rule::G3 | Rule::SP1 | Rule::SP2 | Rule::SG14 | Rule::G6 | Rule::SG6 | Rule::A3 | Rule::SA13
        ) {
            format!(" (entry {} from the head)", st.pos + 1)
        } else {
            String::new()
        };
        out += &format!("  {:>3}. {who:<10} {:<5} {}{at}{call}\n", i + 1, st.rule.to_string(), st.rule.describe());
        out += &ex.show_state(s);
        prev = s.clone();
    }
    let o = explicit::Outcome { regs: run.outcome.regs.clone(), finals: run.outcome.finals.clone() };
    out += &format!("  final outcome: {}\n", crate::analyses::litmus::operational::show_full(&low, &o));
    out += "execution graph of the run (getEG, RDMA paper App. D):\n";
    out += &run.graph.text();
    if let Some(p) = &a.dot {
        let title = format!("{}: {}", low.name, a.outcome.trim());
        if let Err(e) = std::fs::write(p, run.graph.dot(&title)) {
            return error(format!("{}: cannot write: {e}", p.display()));
        }
        out += &format!("wrote {}\n", p.display());
    }
    if decl_hit.is_none() {
        out +=
            "  BUT no consistent execution of the declarative model has this outcome (the engines disagree: a bug)\n";
        return (out, Decided::new(Verdict::Counterexample, "the engines disagree on this outcome"));
    }
    (out, Decided::new(Verdict::Verified, format!("a run of {} transitions reaches the outcome", run.steps.len())))
}
