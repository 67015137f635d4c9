//! # mowgli-check
//!
//! Engines and front ends of Mowgli: the explicit enumeration engine ([`engine`]), the
//! Z3 engine for the witnesses of a plain execution ([`z3eng`]) and the litmus front
//! end ([`litmus`]). The `mowgli` binary is in `src/main.rs`.

pub mod engine;
pub mod explore;
pub mod generate;
pub mod impls;
pub mod lang;
pub mod litmus;
pub mod merge;
pub mod obligations;
pub mod operational;
pub mod robust;
pub mod sensitivity;
pub mod stamporder;
pub mod trace;
pub mod verdict;
pub mod z3eng;
