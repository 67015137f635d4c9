//! The `mowgli` command line: one file per command (its arguments and how its
//! report is printed), over the analyses of `mowgli_check`; [`common`] holds what
//! they share (stamp order and implementation loading, the verdict line and exit
//! status).

pub mod axioms;
pub mod cells;
pub mod check;
pub mod common;
pub mod explore;
pub mod generate;
pub mod litmus;
pub mod merge;
pub mod obligations;
pub mod pivot;
pub mod progress;
pub mod refine;
pub mod refine_junit;
pub mod robust;
pub mod stamp_order;
pub mod trace;
