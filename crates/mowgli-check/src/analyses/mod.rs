//! The analyses: what Mowgli's commands compute, over the [`crate::lang`] front
//! ends and the [`crate::engines`].

pub mod axioms;
pub mod draw;
pub mod explore;
pub mod generate;
pub mod junit;
pub mod litmus;
pub mod merge;
pub mod obligations;
pub mod pivot;
pub mod project;
pub mod reason;
pub mod refine;
pub mod robust;
pub mod sensitivity;
pub mod trace;
pub mod verdict;
