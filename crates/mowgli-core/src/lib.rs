//! # mowgli-core
//!
//! The Mowgli framework of the LOCO paper (POPL 2026) §3, independent of any memory
//! model: stamps and stamp orders ([`stamp`]), events and the static world ([`model`]),
//! the program meta-language and its plain semantics ([`program`]), executions with
//! subevents and ppo ([`exec`]), libraries ([`library`]) and relations ([`rel`]); a
//! library's consistency predicate as data for symbolic engines ([`symbolic`]); why a
//! candidate execution is inconsistent ([`explain`]).

pub mod domain;
pub mod exec;
pub mod explain;
pub mod fixpoint;
pub mod library;
pub mod memory;
pub mod model;
pub mod program;
pub mod rel;
pub mod signature;
pub mod stamp;
pub mod symbolic;

pub use domain::{ValueDomain, Written};
pub use exec::{ExecGraph, SubEvent};
pub use fixpoint::DomainSets;
pub use library::{FinalValue, Library, WitnessSearch};
pub use model::{Event, LocId, LocInfo, ObjInfo, ThreadId, ThreadInfo, Value, World};
pub use rel::BitRel;
pub use signature::{Callers, Effect, MemoryShape, MethodSig, Param, Related, Ret, Role, Variant};
pub use stamp::{Cell, NodeId, Stamp, StampOrder, StampTable};
