//! # mowgli-libs
//!
//! Library specifications for Mowgli: RDMA^TSO ([`rdmatso`], "Semantics of RDMA"
//! Def. 4.2-4.4, with and without the PCIe guarantee; [`rdmatsof1`], the same model
//! as LOCO Def. F.1 formulates it; both with the LOCO App. F.1 methods of
//! [`tsoext`]; RDMA^TSO_RMW, the same with remote RMWs, [`rmw`]), the shipped stamp orders ([`orders`]), coreRMA ([`corerma`], Dan et
//! al., OOPSLA 2016) with each rule of its Fig. 4 switchable, the built-in libraries by name ([`registry`]) and a run's
//! catalogue of libraries ([`catalogue`]). RDMA^WAIT, shared variables, msw, the barrier
//! and the ring-buffer libraries are files (`specs/libs/*.lib`, embedded in the
//! binary by [`registry::FILES`], run by crate `mowgli-spec`).

pub mod catalogue;
pub mod corerma;
pub mod orders;
pub mod rdma;
pub mod rdmatso;
pub mod rdmatsof1;
pub mod registry;
pub mod rmw;
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
