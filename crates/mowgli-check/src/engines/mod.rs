//! The engines: given a bounded program over libraries, the outcomes it has.
//!
//! - [`explicit`]: unfold each thread, then search each plain execution's witnesses
//!   by backtracking with each library's own consistency check (or by [`z3`]);
//! - [`z3`]: the witnesses of one plain execution as an SMT query over each
//!   library's predicate given as data;
//! - [`operational`]: the RDMA^TSO machines of crate `mowgli-machine` over the same
//!   program.

pub mod explicit;
pub mod operational;
pub mod z3;

use std::collections::BTreeSet;

use explicit::{Outcome, Problem};

/// The one interface of the engines: the outcome set of a bounded program.
/// `outcome_Λ(p̃)` (LOCO §3.4) for the declarative engines; the final states the
/// machine reaches for the operational one (equal by RDMA Thm. 4.5 where both
/// apply). An engine that cannot take a program says why (`Err`).
pub trait Engine {
    /// The engine's name in reports (`explicit`, `z3`, `concrete machine`, …).
    fn name(&self) -> String;
    /// The outcomes of `p`, and whether a loop reached the unrolling bound.
    fn outcomes(&self, p: &Problem) -> Result<(BTreeSet<Outcome>, bool), String>;
}

/// The declarative engine with either witness search ([`explicit::Backend`]).
impl Engine for explicit::Backend {
    fn name(&self) -> String {
        match self {
            explicit::Backend::Explicit => "explicit".into(),
            explicit::Backend::Z3 => "z3".into(),
        }
    }
    fn outcomes(&self, p: &Problem) -> Result<(BTreeSet<Outcome>, bool), String> {
        let mut q = p.clone();
        q.backend = *self;
        let r = explicit::run(&q, false).map_err(|e| e.to_string())?;
        Ok((r.outcomes.into_keys().collect(), r.bound_hit))
    }
}

/// An operational machine ([`operational::run`]) with the PCIe guarantee as the
/// program's libraries say (`None`) or forced, with or without the reduction.
pub struct Machine {
    pub machine: mowgli_machine::Machine,
    pub pcie: Option<bool>,
    pub reduce: bool,
}

impl Engine for Machine {
    fn name(&self) -> String {
        match self.machine {
            mowgli_machine::Machine::Concrete => "the concrete machine".into(),
            mowgli_machine::Machine::Simplified => "the simplified machine".into(),
        }
    }
    fn outcomes(&self, p: &Problem) -> Result<(BTreeSet<Outcome>, bool), String> {
        let prog = operational::program(p);
        let (outs, ex, _) = operational::run(&prog, self.machine, self.pcie, self.reduce).map_err(|e| e.to_string())?;
        Ok((outs, ex.bounded))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engines behind [`Engine`] give one outcome set on a store-buffering test
    /// (RDMA Thm. 4.5 for the machines): SB without fences allows every pair of
    /// reads. The Z3 witness search does not take rdmatso and says so.
    #[test]
    fn the_engines_agree_through_one_interface() {
        let text = "test SB\nlibraries rdmatso\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1\nloc y @ 1\n\
                    T1:\n  Write(x, 1)\n  a = Read(y)\nT2:\n  Write(y, 1)\n  b = Read(x)\n";
        let order = mowgli_libs::orders::default_order();
        let ast = crate::lang::syntax::parse(text).expect("parses");
        let low =
            crate::lang::lower::lower(&ast, &order, &mowgli_libs::catalogue::Catalogue::builtins()).expect("lowers");
        let to = order.table("to").expect("table to");
        let p = crate::lang::lower::problem(&low, to);
        let engines: Vec<Box<dyn Engine>> = vec![
            Box::new(explicit::Backend::Explicit),
            Box::new(Machine { machine: mowgli_machine::Machine::Concrete, pcie: None, reduce: true }),
            Box::new(Machine { machine: mowgli_machine::Machine::Simplified, pcie: None, reduce: false }),
        ];
        let sets: Vec<BTreeSet<Outcome>> = engines.iter().map(|e| e.outcomes(&p).expect("runs").0).collect();
        assert_eq!(sets[0].len(), 4, "SB has four outcomes under TSO");
        let z3 = explicit::Backend::Z3.outcomes(&p);
        assert!(z3.as_ref().is_err_and(|e| e.contains("rdmatso")), "{z3:?}");
        for (e, s) in engines.iter().zip(&sets) {
            assert_eq!(s, &sets[0], "{} differs from {}", e.name(), engines[0].name());
        }
    }
}
