//! Libraries by the names the litmus format uses.

use mowgli_core::{Library, StampOrder};

use crate::bal::Bal;
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
];

/// Builds library `name` under the stamp order `order`.
pub fn library(name: &str, order: &StampOrder) -> Result<Box<dyn Library>, LibError> {
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
        n if KNOWN.contains(&n) => return Err(LibError::NotYetAvailable(n.into())),
        n => return Err(LibError::Unknown(n.into(), KNOWN.join(", "))),
    })
}
