//! **The independent oracle** of the differential tests (`tests/spec_libs.rs`,
//! `tests/z3_spec_libs.rs`, `benches/spec_libs.rs`): sv, rdmawait, msw, bal,
//! bal_all, rbl, rbl_weak and rbl_rfe written directly in Rust against the
//! `Library` / `WitnessSearch` interface, from the LOCO paper's definitions
//! (Def. 3.8, Def. F.2, Def. G.11, Def. 4.1, §4.3, Def. 5.2 and §5.1).
//!
//! The source of truth of these libraries is their file in `specs/libs/`, which
//! the built-in names resolve to (embedded in the binary, `mowgli_libs::registry`).
//! These Rust versions are not used by the tool: they exist only so that the file
//! libraries, run by the relational evaluator of `mowgli-spec` and by the Z3
//! engine, are compared with a second computation that shares no code with that
//! evaluator (they share the stamp order, the memory enumerator of `mowgli-core`
//! and the RDMA helpers of `mowgli_libs::rdma` with the Rust RDMA^TSO).

#![allow(dead_code)]

pub mod bal;
pub mod rbl;
pub mod rdmawait;
pub mod sv;

use std::sync::Arc;

use mowgli_core::{Library, StampOrder};
use mowgli_libs::catalogue::Factory;
use mowgli_libs::LibError;

/// The library names the oracle has.
pub const NAMES: [&str; 8] = ["sv", "rdmawait", "msw", "bal", "bal_all", "rbl", "rbl_weak", "rbl_rfe"];

/// The oracle's version of library `name` under `order`.
pub fn library(name: &str, order: &StampOrder) -> Result<Box<dyn Library>, LibError> {
    use rbl::{Rbl, Variant};
    Ok(match name {
        "sv" => Box::new(sv::Sv::new(order)?),
        "rdmawait" => Box::new(rdmawait::RdmaWait::new(order)?),
        "msw" => Box::new(rdmawait::RdmaWait::msw(order)?),
        "bal" => Box::new(bal::Bal::new(order, false)?),
        "bal_all" => Box::new(bal::Bal::new(order, true)?),
        "rbl" => Box::new(Rbl::new(order, Variant::Def52)?),
        "rbl_weak" => Box::new(Rbl::new(order, Variant::Weak)?),
        "rbl_rfe" => Box::new(Rbl::new(order, Variant::Rfe)?),
        n => return Err(LibError::Unknown(n.into(), NAMES.join(", "))),
    })
}

/// Registry overrides putting the oracle's versions of `names` in place of the
/// built-in (file) libraries.
pub fn overrides(names: &[&str]) -> Vec<(String, Factory)> {
    names
        .iter()
        .map(|n| {
            let name = n.to_string();
            let f: Factory = Arc::new(move |order: &StampOrder| library(&name, order));
            (n.to_string(), f)
        })
        .collect()
}
