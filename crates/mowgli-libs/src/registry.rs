//! The built-in libraries by the names the litmus format uses. A run's libraries
//! (these and the ones read from files) travel as a [`crate::catalogue::Catalogue`].
//!
//! The built-ins come from two places. sv, rdmawait, msw, bal, bal_all, rbl,
//! rbl_weak and rbl_rfe are their library files (`specs/libs/*.lib`, the source of
//! truth, embedded in the binary: [`FILES`]), run by the evaluator of
//! `mowgli-spec` (and compiled to SMT by the Z3 engine). RDMA^TSO (rdmatso,
//! rdmatso_nopcie, rdmasc, rdmatso_f1) and coreRMA are Rust (`docs/spec-language.md`
//! says what of them the language cannot say).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use mowgli_core::{Library, StampOrder};
use mowgli_spec::{FileLibrary, Spec};

use crate::corerma::CoreRma;
use crate::rdmatso::RdmaTso;
use crate::rdmatsof1::RdmaTsoF1;
use crate::rmw::RemoteAtomics;
use crate::LibError;

/// The library files embedded in the binary, (file name, text): the built-in
/// libraries whose source of truth is their file, and the files they include.
pub const FILES: &[(&str, &str)] = &[
    ("sv.lib", include_str!("../../../specs/libs/sv.lib")),
    ("rdmawait.lib", include_str!("../../../specs/libs/rdmawait.lib")),
    ("msw.lib", include_str!("../../../specs/libs/msw.lib")),
    ("rdmawait-core.inc", include_str!("../../../specs/libs/rdmawait-core.inc")),
    ("bal.lib", include_str!("../../../specs/libs/bal.lib")),
    ("bal_all.lib", include_str!("../../../specs/libs/bal_all.lib")),
    ("rbl.lib", include_str!("../../../specs/libs/rbl.lib")),
    ("rbl_weak.lib", include_str!("../../../specs/libs/rbl_weak.lib")),
    ("rbl_rfe.lib", include_str!("../../../specs/libs/rbl_rfe.lib")),
    ("rbl-core.inc", include_str!("../../../specs/libs/rbl-core.inc")),
];

/// The built-in libraries that are files ([`FILES`]).
pub const FILE_BUILTINS: [&str; 8] = ["sv", "rdmawait", "msw", "bal", "bal_all", "rbl", "rbl_weak", "rbl_rfe"];

/// The parsed built-in library file `name` (parsed once per process).
pub fn builtin_spec(name: &str) -> Option<&'static Spec> {
    builtin_arc(name).map(|a| a.as_ref())
}

/// The parsed built-in library file `name`, shared: each library built from it
/// holds the one parse (a check builds its libraries once per client).
fn builtin_arc(name: &str) -> Option<&'static Arc<Spec>> {
    static SPECS: OnceLock<HashMap<&'static str, Arc<Spec>>> = OnceLock::new();
    let specs = SPECS.get_or_init(|| {
        FILE_BUILTINS
            .iter()
            .map(|&n| {
                let file = format!("{n}.lib");
                let text = FILES.iter().find(|(f, _)| *f == file).map_or("", |(_, t)| *t);
                // the embedded files are tested to parse (tests/spec_libs.rs); a
                // failure here is a build of a broken file, not bad user input
                let spec = mowgli_spec::parse_embedded(&format!("specs/libs/{file}"), text, FILES)
                    .unwrap_or_else(|d| panic!("built-in library file does not parse:\n{}", d.render()));
                (n, Arc::new(spec))
            })
            .collect()
    });
    specs.get(name)
}

/// Every library name of the litmus format, available or not.
pub const KNOWN: &[&str] = &[
    "rdmatso",
    "rdmatso_nopcie",
    "rdmasc",
    "rdmatso_f1",
    "rdmatso_rmw",
    "rdmatso_rmw_nopcie",
    "rdmatso_rmw_glob",
    "rdmasc_rmw",
    "rdmasc_rmw_glob",
    "rdmawait",
    "sv",
    "bal",
    "bal_all",
    "rbl",
    "rbl_weak",
    "rbl_rfe",
    "msw",
    "corerma",
    "corerma_noir",
];

/// The library through which clients of a library whose methods take barriers
/// observe by default (a barrier has no locations; the paper's litmus tests of
/// bal observe through RDMA^WAIT).
pub const BARRIER_OBSERVER: &str = "rdmawait";

/// The same for rings (the paper's litmus tests of rbl observe through sv).
pub const RING_OBSERVER: &str = "sv";

/// Most built-in libraries a thread keeps built ([`builtin`]).
const KEPT: usize = 8;

/// A built library: its name, the stamp order it was built under, the library.
type Built = (String, StampOrder, Arc<dyn Library>);

thread_local! {
    /// The built-in libraries this thread built, most recently used first, with
    /// the stamp order each was built under: a check that builds the same
    /// libraries for every client (`mowgli refine`) builds them once per thread.
    static BUILT: RefCell<Vec<Built>> = const { RefCell::new(Vec::new()) };
}

/// The built-in library `name` under `order` (ignoring overrides). Libraries are
/// immutable once built, so one built before under an equal order is shared.
pub fn builtin(name: &str, order: &StampOrder) -> Result<Box<dyn Library>, LibError> {
    let kept = BUILT.with(|b| {
        let mut b = b.borrow_mut();
        let i = b.iter().position(|(n, o, _)| n == name && o == order)?;
        let entry = b.remove(i);
        let lib = Arc::clone(&entry.2);
        b.insert(0, entry);
        Some(lib)
    });
    if let Some(lib) = kept {
        return Ok(Box::new(lib));
    }
    let lib: Arc<dyn Library> = Arc::from(build(name, order)?);
    BUILT.with(|b| {
        let mut b = b.borrow_mut();
        b.insert(0, (name.to_string(), order.clone(), Arc::clone(&lib)));
        b.truncate(KEPT);
    });
    Ok(Box::new(lib))
}

/// Builds the built-in library `name` under `order`.
fn build(name: &str, order: &StampOrder) -> Result<Box<dyn Library>, LibError> {
    if let Some(spec) = builtin_arc(name) {
        let l = FileLibrary::new(Arc::clone(spec), order).map_err(LibError::Other)?;
        return Ok(Box::new(l));
    }
    Ok(match name {
        "rdmatso" => Box::new(RdmaTso::new(order, true)?),
        "rdmatso_nopcie" => Box::new(RdmaTso::new(order, false)?),
        "rdmasc" => Box::new(RdmaTso::sc(order)?),
        "rdmatso_f1" => Box::new(RdmaTsoF1::new(order)?),
        // RDMA^TSO_RMW (issue 33): remote RCAS/RFAA, HCA or global atomicity
        "rdmatso_rmw" => Box::new(RdmaTso::rmw(order, true, RemoteAtomics::Hca)?),
        "rdmatso_rmw_nopcie" => Box::new(RdmaTso::rmw(order, false, RemoteAtomics::Hca)?),
        "rdmatso_rmw_glob" => Box::new(RdmaTso::rmw(order, true, RemoteAtomics::Global)?),
        // RDMA^SC_RMW: the same with SC CPUs (the strong model of `mowgli robust`)
        "rdmasc_rmw" => Box::new(RdmaTso::rmw_sc(order, RemoteAtomics::Hca)?),
        "rdmasc_rmw_glob" => Box::new(RdmaTso::rmw_sc(order, RemoteAtomics::Global)?),
        // coreRMA customised for VPI Verbs (coreRMA paper §7)
        "corerma_vpi" => Box::new(CoreRma::vpi(order)?),
        // coreRMA, stock or with rules of its Fig. 4 switched off (`corerma_noir`, `corerma_nor1`, …)
        n if CoreRma::parse_name(n).is_some() => {
            Box::new(CoreRma::without(order, CoreRma::parse_name(n).unwrap_or_default())?)
        }
        n if KNOWN.contains(&n) => return Err(LibError::NotYetAvailable(n.into())),
        n => return Err(LibError::Unknown(n.into(), KNOWN.join(", "))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A library kept built is handed out only for an equal stamp order: under
    /// another order the library is built again (and fails when it must).
    #[test]
    fn kept_libraries_follow_the_order() {
        let order = crate::orders::default_order();
        let first = builtin("rdmatso", &order).expect("rdmatso builds under the default order");
        let again = builtin("rdmatso", &order).expect("and again");
        assert_eq!(first.name(), again.name());
        let mut no_to = order.clone();
        no_to.tables.remove("to");
        assert!(builtin("rdmatso", &no_to).is_err(), "an order without `to` must not get the kept library");
        let mut other = order.clone();
        if let Some(t) = other.tables.get_mut("to") {
            t.cells[0][0] = match t.cells[0][0] {
                mowgli_core::stamp::Cell::Ordered => mowgli_core::stamp::Cell::Unordered,
                _ => mowgli_core::stamp::Cell::Ordered,
            };
        }
        let n = BUILT.with(|b| b.borrow().len());
        builtin("rdmatso", &other).expect("builds under the changed order");
        assert_eq!(BUILT.with(|b| b.borrow().len()), n + 1, "a changed order builds its own library");
        builtin("rdmatso", &order).expect("the first is still kept");
        assert_eq!(BUILT.with(|b| b.borrow().len()), n + 1);
    }
}
