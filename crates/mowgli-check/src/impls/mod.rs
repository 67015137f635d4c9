//! Implementations at work: bounded refinement (`refine`), generated clients
//! (`gen`) and counterexample minimisation (`minimise`). The implementation
//! language itself is in [`crate::lang`].

pub mod gen;
pub mod minimise;
pub mod refine;

pub use crate::lang::grammar as syntax;
pub use crate::lang::implementation::*;
