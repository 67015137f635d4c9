//! The engines: given a bounded program over libraries, the outcomes it has.
//!
//! - [`explicit`]: unfold each thread, then search each plain execution's witnesses
//!   by backtracking with each library's own consistency check (or by [`z3`]);
//! - [`z3`]: the witnesses of one plain execution as an SMT query over each
//!   library's predicate given as data;
//! - [`operational`]: the RDMA^TSO machines of crate `mowgli-machine` over the same
//!   program.

pub mod explicit;
pub mod operational;
pub mod z3;
