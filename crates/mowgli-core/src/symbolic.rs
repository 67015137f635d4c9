//! A library's consistency predicate over one plain execution *as data*, for
//! engines that do not enumerate witnesses (the Z3 engine of `mowgli-check`).
//!
//! The explicit engine asks a [`crate::WitnessSearch`] to `check` partial
//! assignments; a symbolic engine instead needs to know what the witness variables
//! mean and which relations the predicate builds from them. [`RelSpec`] says it for
//! the memory-like libraries: their witnesses are an rf/mo choice over cells (an
//! [`RfMo`], with the same variables in the same order as the search), optionally
//! followed by binary orientation choices (e.g. a NIC flush order), and their
//! predicate is
//!
//! * every read reads a value its label allows, from a write of its cell or the
//!   initial value (the [`RfMo`] candidates and values);
//! * `rb ∩ forbid_rb = ∅`;
//! * when [`RelSpec::ib`] is set: `ib = (ib.fixed ∪ (rf ∩ ib.rf) ∪ (rb ∩ ib.rb) ∪ orient)⁺`
//!   is irreflexive;
//! * and it contributes `so = so_fixed ∪ (rf ∩ so_rf) ∪ (rb ∩ so_rb) ∪ (mo ∩ so_mo)
//!   ∪ orient (if so_orient) ∪ [ib.inst]; ib` to the execution's so, whose union with
//!   ppo must be acyclic (Λ-consistency, LOCO Def. 3.6).
//!
//! A mask is a [`BitRel`] of the pairs kept. A library whose predicate is stated in
//! the relational algebra of `docs/spec-language.md` (a file library) gives instead
//! a [`RelProgram`] ([`RelSpec::program`]): its memory is the same `RfMo` (masks
//! empty), and everything else — its declared witnesses, derived relations, named
//! axioms and so — is a relational expression over this plain execution's
//! subevents, static parts already evaluated. Libraries whose predicate has
//! another shape give no `RelSpec`, and a symbolic engine declines them. Each library builds
//! its `RelSpec` beside its `check`; the two engines agreeing on every test is what
//! shows that the two descriptions say the same thing.

use crate::memory::RfMo;
use crate::rel::BitRel;

/// The part of a predicate that is an irreflexive transitive closure (LOCO App. F.2's
/// ib), with the [`RelSpec::so`] edges it induces from instantaneous subevents.
#[derive(Clone, Debug)]
pub struct IbSpec {
    /// Edges fixed by the plain execution (ippo, iso, polls-from …).
    pub fixed: BitRel,
    /// The rf edges that are ib edges.
    pub rf: BitRel,
    /// The rb edges that are ib edges.
    pub rb: BitRel,
    /// Whether the orientation edges are ib edges.
    pub orient: bool,
    /// Subevents whose ib successors are so successors.
    pub inst: Vec<bool>,
}

/// See the module documentation.
#[derive(Clone, Debug)]
pub struct RelSpec {
    /// False when the plain execution alone already violates the predicate.
    pub possible: bool,
    /// The rf/mo space; its variables come first, in its own order.
    pub mem: RfMo,
    /// Orientation variables after the rf/mo ones: value 0 is the edge `(a, b)`, value
    /// 1 the edge `(b, a)`.
    pub orient: Vec<(usize, usize)>,
    pub so_fixed: BitRel,
    pub so_rf: BitRel,
    pub so_rb: BitRel,
    pub so_mo: BitRel,
    pub so_orient: bool,
    pub forbid_rb: BitRel,
    pub ib: Option<IbSpec>,
    /// The rest of the predicate as relational expressions (a file library); the
    /// masks above are then empty.
    pub program: Option<RelProgram>,
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

impl RelSpec {
    /// A predicate with no variables: `possible`, and `so` as given.
    pub fn fixed(n: usize, possible: bool, so: BitRel) -> RelSpec {
        RelSpec {
            possible,
            mem: RfMo::new(n, vec![], vec![], vec![]),
            orient: vec![],
            so_fixed: so,
            so_rf: BitRel::new(n),
            so_rb: BitRel::new(n),
            so_mo: BitRel::new(n),
            so_orient: false,
            forbid_rb: BitRel::new(n),
            ib: None,
            program: None,
        }
    }

    /// The full relation on `n` subevents (a mask keeping every pair).
    pub fn all(n: usize) -> BitRel {
        BitRel::from_fn(n, |_, _| true)
    }
}
