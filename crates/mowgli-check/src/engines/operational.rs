//! The operational engine: RDMA^TSO's machines (crate `mowgli-machine`, RDMA
//! paper §3.2-3.3) over a program given as its world, its threads as programs of
//! the meta-language and its value domain. The outcomes have the declarative
//! engine's shape ([`Outcome`]: every register, the final value of every location a
//! call addresses), so the two engines' outcome sets compare directly.

use std::collections::BTreeSet;

use mowgli_machine::{Explored, Machine, MachineError, Options, Program};
use serde::Serialize;

use crate::engines::explicit::Outcome;

/// What the machine did on one test (`--stats`, `--json`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct MachineStats {
    pub machine: &'static str,
    pub pcie: bool,
    pub states: usize,
    pub transitions: usize,
    pub deadlocks: usize,
    pub micros: u128,
    /// Declarative engine's time on the same test (`both` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declarative_micros: Option<u128>,
}

/// A problem of the declarative engine as a machine program (same world,
/// libraries, threads, value domain and loop bound).
pub fn program<'p>(p: &'p crate::engines::explicit::Problem) -> Program<'p> {
    Program { world: &p.world, libs: &p.libs, threads: &p.threads, domain: &p.domain, loop_bound: p.loop_bound }
}

/// Runs a program on a machine: its outcomes, what the machine explored, and
/// whether the PCIe guarantee was on.
pub fn run(
    prog: &Program,
    machine: Machine,
    pcie: Option<bool>,
    reduce: bool,
) -> Result<(BTreeSet<Outcome>, Explored, bool), MachineError> {
    let ex = mowgli_machine::Explorer::new(prog, machine, pcie)?;
    let used_pcie = ex.pcie;
    let opts = Options { machine, pcie, reduce, ..Options::default() };
    let r = ex.explore(&opts)?;
    let outs = r.outcomes.iter().map(|o| Outcome { regs: o.regs.clone(), finals: o.finals.clone() }).collect();
    Ok((outs, r, used_pcie))
}

pub fn stats_of(machine: Machine, pcie: bool, r: &Explored) -> MachineStats {
    MachineStats {
        machine: match machine {
            Machine::Concrete => "concrete",
            Machine::Simplified => "simplified",
        },
        pcie,
        states: r.states,
        transitions: r.transitions,
        deadlocks: r.deadlocks,
        micros: r.micros,
        declarative_micros: None,
    }
}
