//! The litmus front end on the operational engine: `mowgli litmus --engine
//! operational|operational-simplified|both`.
//!
//! `both` runs the declarative engine and the concrete machine and reports every
//! outcome one has and the other has not (Thm. 4.5 of the RDMA paper says there is
//! none): such a difference is a bug in one engine, reported as a failure (verdict
//! `counterexample`, exit 1: the run found a counterexample to the engines' claimed
//! agreement; the input is fine, so it is not `error`).

use mowgli_libs::catalogue::Catalogue;
use std::collections::{BTreeMap, BTreeSet};

use mowgli_core::{Library, StampOrder};
use mowgli_machine::{Explored, Machine, Program};
use serde::Serialize;

use crate::engines::explicit::{self, Outcome};
use crate::engines::operational::run;
use crate::lang::lower::{self, Lowered};
use crate::lang::syntax;

/// The engine of `mowgli litmus --engine`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LitmusEngine {
    /// The declarative model, witnesses by backtracking.
    #[default]
    Explicit,
    /// The declarative model, witnesses by Z3.
    Z3,
    /// RDMA^TSO's concrete operational machine (RDMA paper §3.2).
    Operational,
    /// RDMA^TSO's simplified operational machine (RDMA paper §3.3, App. B).
    OperationalSimplified,
    /// The declarative engine and the concrete machine; any difference is reported.
    Both,
}

impl LitmusEngine {
    pub fn backend(self) -> explicit::Backend {
        match self {
            LitmusEngine::Z3 => explicit::Backend::Z3,
            _ => explicit::Backend::Explicit,
        }
    }
    pub fn machine(self) -> Option<Machine> {
        match self {
            LitmusEngine::Operational | LitmusEngine::Both => Some(Machine::Concrete),
            LitmusEngine::OperationalSimplified => Some(Machine::Simplified),
            _ => None,
        }
    }
}

/// The libraries of a lowered test as the machine takes them.
pub fn libs_of(low: &Lowered) -> Vec<&dyn Library> {
    low.libs.iter().map(|b| b.as_ref()).collect()
}

/// A lowered test as a machine program (its libraries from [`libs_of`]).
pub fn program<'a>(low: &'a Lowered, libs: &'a [&'a dyn Library]) -> Program<'a> {
    Program { world: &low.world, libs, threads: &low.threads, domain: &low.domain, loop_bound: low.loop_bound }
}

/// Runs a lowered test on a machine.
pub fn run_lowered(
    low: &Lowered,
    machine: Machine,
    pcie: Option<bool>,
    reduce: bool,
) -> Result<(BTreeSet<Outcome>, Explored, bool), mowgli_machine::MachineError> {
    let libs = libs_of(low);
    run(&program(low, &libs), machine, pcie, reduce)
}

/// An outcome as text, with every register and every location it has a final value for.
pub fn show_full(low: &Lowered, o: &Outcome) -> String {
    let mut m: BTreeMap<String, String> = lower::show_outcome(low, o);
    for ((l, _), v) in &o.finals {
        let li = &low.world.locs[*l];
        if !li.implicit {
            m.insert(li.name.clone(), low.world.show(v));
        }
    }
    m.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ")
}

/// The differences between two outcome sets, as messages.
pub fn differences(low: &Lowered, decl: &BTreeSet<Outcome>, op: &BTreeSet<Outcome>, what: &str) -> Vec<String> {
    let mut out = Vec::new();
    for o in decl.difference(op) {
        out.push(format!("outcome {} is declarative only ({what} cannot reach it)", show_full(low, o)));
    }
    for o in op.difference(decl) {
        out.push(format!("outcome {} is {what} only (no consistent execution has it)", show_full(low, o)));
    }
    out
}

/// Both engines' outcome sets of a test given as text, for the equivalence
/// tests: (declarative, machine, what the machine explored).
pub fn compare_text(
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    machine: Machine,
    pcie: Option<bool>,
    reduce: bool,
) -> Result<(BTreeSet<Outcome>, BTreeSet<Outcome>, Explored), String> {
    let ast = syntax::parse(text).map_err(|e| format!("{}:{}: {}", e.line, e.col, e.msg))?;
    let low = lower::lower(&ast, order, cat).map_err(|e| format!("{}:{}: {}", e.line, e.col, e.msg))?;
    let to = order.table("to").ok_or("no table `to`")?;
    let prob = lower::problem(&low, to);
    let res = explicit::run(&prob, false).map_err(|e| e.to_string())?;
    let decl: BTreeSet<Outcome> = res.outcomes.keys().cloned().collect();
    let (op, ex, _) = run_lowered(&low, machine, pcie, reduce).map_err(|e| e.to_string())?;
    Ok((decl, op, ex))
}

/// The machine's outcome set of a test given as text.
pub fn machine_outcomes_text(
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    machine: Machine,
    pcie: Option<bool>,
    reduce: bool,
) -> Result<(BTreeSet<Outcome>, Explored), String> {
    let ast = syntax::parse(text).map_err(|e| format!("{}:{}: {}", e.line, e.col, e.msg))?;
    let low = lower::lower(&ast, order, cat).map_err(|e| format!("{}:{}: {}", e.line, e.col, e.msg))?;
    let (op, ex, _) = run_lowered(&low, machine, pcie, reduce).map_err(|e| e.to_string())?;
    Ok((op, ex))
}
