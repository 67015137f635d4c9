//! Libraries by the names the litmus format uses, and overrides: libraries built
//! elsewhere (e.g. read from a library file, crate `mowgli-spec`) that replace a
//! built-in of the same name or add a new name, for the whole process
//! ([`install`], the CLI's `--lib FILE`) or for one call on the current thread
//! ([`with_overrides`], tests).

use std::cell::RefCell;
use std::sync::{Arc, RwLock};

use mowgli_core::{Library, StampOrder};

use crate::bal::Bal;
use crate::corerma::CoreRma;
use crate::rbl::{Rbl, Variant};
use crate::rdmatso::RdmaTso;
use crate::rdmatsof1::RdmaTsoF1;
use crate::rdmawait::RdmaWait;
use crate::sv::Sv;
use crate::LibError;

/// Every library name of the litmus format, available or not.
pub const KNOWN: &[&str] = &[
    "rdmatso",
    "rdmatso_nopcie",
    "rdmasc",
    "rdmatso_f1",
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

/// Builds a library under a stamp order (an override's constructor).
pub type Factory = Arc<dyn Fn(&StampOrder) -> Result<Box<dyn Library>, LibError> + Send + Sync>;

static INSTALLED: RwLock<Vec<(String, Factory)>> = RwLock::new(Vec::new());

thread_local! {
    static SCOPED: RefCell<Vec<(String, Factory)>> = const { RefCell::new(Vec::new()) };
}

/// Makes `name` resolve to `factory` for the rest of the process (a later
/// install of the same name wins).
pub fn install(name: &str, factory: Factory) {
    let mut v = INSTALLED.write().unwrap_or_else(|e| e.into_inner());
    v.retain(|(n, _)| n != name);
    v.push((name.to_string(), factory));
}

/// Runs `f` with `overrides` in force on the current thread (they win over
/// [`install`]ed ones and the built-ins), then removes them.
pub fn with_overrides<R>(overrides: Vec<(String, Factory)>, f: impl FnOnce() -> R) -> R {
    let before = SCOPED.with(|s| std::mem::replace(&mut *s.borrow_mut(), overrides));
    struct Restore(Option<Vec<(String, Factory)>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take().unwrap_or_default();
            SCOPED.with(|s| *s.borrow_mut() = before);
        }
    }
    let _restore = Restore(Some(before));
    f()
}

/// The names overridden now (scoped ones first), e.g. to list them as known.
pub fn override_names() -> Vec<String> {
    let mut names: Vec<String> = SCOPED.with(|s| s.borrow().iter().map(|(n, _)| n.clone()).collect());
    names.extend(INSTALLED.read().unwrap_or_else(|e| e.into_inner()).iter().map(|(n, _)| n.clone()));
    names
}

fn overridden(name: &str) -> Option<Factory> {
    if let Some(f) = SCOPED.with(|s| s.borrow().iter().rev().find(|(n, _)| n == name).map(|(_, f)| f.clone())) {
        return Some(f);
    }
    INSTALLED.read().unwrap_or_else(|e| e.into_inner()).iter().rev().find(|(n, _)| n == name).map(|(_, f)| f.clone())
}

/// Builds library `name` under the stamp order `order`: an override of that
/// name if one is in force, else the built-in.
pub fn library(name: &str, order: &StampOrder) -> Result<Box<dyn Library>, LibError> {
    if let Some(f) = overridden(name) {
        return f(order);
    }
    builtin(name, order)
}

/// Builds the built-in library `name` (ignoring overrides).
pub fn builtin(name: &str, order: &StampOrder) -> Result<Box<dyn Library>, LibError> {
    Ok(match name {
        "rdmatso" => Box::new(RdmaTso::new(order, true)?),
        "rdmatso_nopcie" => Box::new(RdmaTso::new(order, false)?),
        "rdmasc" => Box::new(RdmaTso::sc(order)?),
        "rdmatso_f1" => Box::new(RdmaTsoF1::new(order)?),
        "rdmawait" => Box::new(RdmaWait::new(order)?),
        "sv" => Box::new(Sv::new(order)?),
        "bal" => Box::new(Bal::new(order, false)?),
        "bal_all" => Box::new(Bal::new(order, true)?),
        "msw" => Box::new(RdmaWait::msw(order)?),
        "rbl" => Box::new(Rbl::new(order, Variant::Def52)?),
        "rbl_weak" => Box::new(Rbl::new(order, Variant::Weak)?),
        "rbl_rfe" => Box::new(Rbl::new(order, Variant::Rfe)?),
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
