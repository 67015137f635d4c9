//! A library's consistency predicate over one plain execution *as data*, for
//! engines that do not enumerate witnesses (the Z3 engine of `mowgli-check`).
//!
//! The explicit engine asks a [`crate::WitnessSearch`] to `check` partial
//! assignments; a symbolic engine instead needs to know what the witness variables
//! mean and which relations the predicate builds from them. [`RelSpec`] says it
//! for a library stated in the relational algebra of `docs/spec-language.md` (a
//! library file, `specs/libs/*.lib`): its memory is an rf/mo choice over cells (an
//! [`RfMo`], with the same variables in the same order as the search), and
//! everything else — its declared witnesses, derived relations, named axioms and
//! so — is a relational expression over this plain execution's subevents
//! ([`RelProgram`]), static parts already evaluated. The execution is consistent
//! for the library iff every read reads a value its label allows, from a write of
//! its cell or the initial value (the [`RfMo`] candidates and values), and every
//! axiom holds; the library contributes the union of its so terms to the
//! execution's so, whose union with ppo must be acyclic (Λ-consistency, LOCO
//! Def. 3.6). Libraries whose predicate has another shape (the Rust RDMA^TSO and
//! coreRMA) give no `RelSpec`, and a symbolic engine declines them.
//!
//! (Before the library files became the source of truth, sv, rdmawait, msw and
//! bal were Rust code with a second, hand-written description here as masks of
//! rf / rb / mo pairs; the relational form replaced it at the same speed.)

use crate::memory::RfMo;
use crate::rel::BitRel;

/// See the module documentation.
#[derive(Clone, Debug)]
pub struct RelSpec {
    /// False when the plain execution alone already violates the predicate.
    pub possible: bool,
    /// The rf/mo space; its variables come first, in its own order.
    pub mem: RfMo,
    /// The rest of the predicate as relational expressions.
    pub program: RelProgram,
}

/// A relational expression over the subevents of one plain execution, its static
/// parts evaluated to constants: what a library file's expression
/// (`mowgli_spec::Expr`) becomes once the plain execution is known. Sets and
/// relations share the operators; which one an operator builds follows from its
/// operands.
#[derive(Clone, Debug)]
pub enum RelExpr {
    /// A constant set of subevents.
    Set(Vec<bool>),
    /// A constant relation.
    Rel(BitRel),
    /// The memory's witnesses ([`RelSpec::mem`]): rf, mo, rb = rf⁻¹; mo (a read of
    /// the initial value before every write of its cell) minus the identity.
    Rf,
    Mo,
    Rb,
    /// The current relation of declared witness i ([`RelProgram::witnesses`]).
    Wit(usize),
    /// The execution's happens-before hb = (ppo ∪ so)⁺ (every library's so), in
    /// [`RelProgram::hb_axioms`] only.
    Hb,
    /// [`RelProgram::lets`]\[i\].
    Let(usize),
    /// `[S]`
    Ident(Box<RelExpr>),
    /// `S × S'`
    Prod(Box<RelExpr>, Box<RelExpr>),
    Domain(Box<RelExpr>),
    Range(Box<RelExpr>),
    Inv(Box<RelExpr>),
    /// Transitive closure (`r*` is written `r⁺ ∪ [own subevents]`).
    Plus(Box<RelExpr>),
    Seq(Box<RelExpr>, Box<RelExpr>),
    Union(Box<RelExpr>, Box<RelExpr>),
    Inter(Box<RelExpr>, Box<RelExpr>),
    Diff(Box<RelExpr>, Box<RelExpr>),
}

/// A declared witness of a [`RelProgram`], with its variables (after the memory's,
/// in this order).
#[derive(Clone, Debug)]
pub enum SymWitness {
    /// One binary variable per pair: value 0 is `(a, b)`, value 1 is `(b, a)`.
    Orients(Vec<(usize, usize)>),
    /// One variable per target `b`: value j relates `(cands[j], b)`.
    Picks(Vec<(usize, Vec<usize>)>),
}

/// The kind of a named axiom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymAxiomKind {
    Acyclic,
    Irreflexive,
    Empty,
}

/// A library predicate in relational form (see [`RelSpec::program`]): the
/// execution is consistent for it iff every axiom holds; it contributes the union
/// of `so` to the execution's so.
#[derive(Clone, Debug)]
pub struct RelProgram {
    pub witnesses: Vec<SymWitness>,
    /// Definitions, each using only earlier ones.
    pub lets: Vec<RelExpr>,
    /// (name, kind, expression), the dynamic axioms (static ones are decided in
    /// [`RelSpec::possible`]).
    pub axioms: Vec<(String, SymAxiomKind, RelExpr)>,
    /// The axioms that mention hb (they need every library's so).
    pub hb_axioms: Vec<(String, SymAxiomKind, RelExpr)>,
    /// The union terms of so.
    pub so: Vec<RelExpr>,
}
