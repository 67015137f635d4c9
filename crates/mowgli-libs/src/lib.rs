//! # mowgli-libs
//!
//! Library specifications for Mowgli: RDMA^TSO ([`rdmatso`], "Semantics of RDMA"
//! Def. 4.2-4.4, with and without the PCIe guarantee; [`rdmatsof1`], the same model
//! as LOCO Def. F.1 formulates it; both with the LOCO App. F.1 methods of
//! [`tsoext`]), RDMA^WAIT ([`rdmawait`], LOCO
//! Def. F.2) and shared variables ([`sv`], LOCO Def. 3.8), plus the shipped stamp
//! orders ([`orders`]), the barrier library ([`bal`], LOCO Def. 4.1 and §4.3) and a
//! registry of libraries by name ([`registry`]); coreRMA ([`corerma`], Dan et al.,
//! OOPSLA 2016) with each rule of its Fig. 4 switchable.

pub mod bal;
pub mod corerma;
pub mod orders;
pub mod rbl;
pub mod rdma;
pub mod rdmatso;
pub mod rdmatsof1;
pub mod rdmawait;
pub mod registry;
pub mod sv;
pub mod tsoext;

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LibError {
    #[error("the stamp order has no table `{0}`")]
    MissingTable(String),
    #[error("table `{table}` has no stamp `{stamp}`, which this library needs")]
    MissingStamp { table: String, stamp: String },
    #[error("unknown library `{0}` (known: {1})")]
    Unknown(String, String),
    #[error("library `{0}` is not yet available in this version of Mowgli")]
    NotYetAvailable(String),
    /// A library built from a file could not be built (e.g. its stamps are not in the stamp order).
    #[error("{0}")]
    Other(String),
}
