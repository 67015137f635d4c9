//! # mowgli-spec
//!
//! Library specifications as files (`specs/libs/NAME.lib`, the language of
//! `docs/spec-language.md`): a library `⟨M, loc, C⟩` (LOCO Def. 3.5) is stated by
//! its methods, its memory, its stamping function `stmp` (Def. 3.3), its witnesses,
//! relations derived in a relational algebra, named axioms and the `so` it
//! contributes (Def. 3.6). [`parse_file`] / [`parse_text`] read a file into a
//! [`Spec`], the typed intermediate representation below; [`Spec::library`]
//! makes it a [`mowgli_core::Library`] that the explicit engine runs unchanged
//! (module [`eval`]).
//!
//! ## The IR
//!
//! Everything a file says is resolved to indices: stamps (into [`Spec::stamps`]),
//! methods and their parameters, witnesses, `let` definitions (into
//! [`Spec::lets`], each defined before use, as in herd7's cat). Expressions
//! ([`Expr`]) are typed ([`Ty`]: a set of subevents or a relation over
//! subevents) when parsed. A symbolic engine walks [`Spec::lets`], [`Spec::so`]
//! and [`Spec::axioms`] with the witness relations ([`Witness`], plus rf / mo /
//! rb of the memory) as unknowns; [`Expr::monotone`] and [`Expr::dynamic`] tell
//! which parts depend on the witness and how. [`Spec::without_axiom`] drops one
//! named axiom (axiom sensitivity).

pub mod eval;
mod lex;
mod parse;
pub mod weaken;

use std::path::Path;

use mowgli_diag::Diagnostic;

pub use eval::FileLibrary;
pub use parse::Includes;
pub use weaken::{Change, Weakening};

/// A stamp kind the library uses (`stamps aCR aNRW_n …`): resolved by name in the
/// stamp order's table `to` when the library is built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StampDecl {
    pub name: String,
    /// A node-indexed family (`aNRW_n`).
    pub family: bool,
    /// Where it is declared (for a stamp the stamp order lacks).
    pub site: Site,
}

/// Where a declaration is written: its position and source line, kept as a
/// diagnostic without a message. Not part of the declaration's value: two sites
/// compare equal (a library read from a file equals the same text embedded).
#[derive(Clone, Debug, Default)]
pub struct Site(pub Option<Diagnostic>);

impl PartialEq for Site {
    fn eq(&self, _: &Site) -> bool {
        true
    }
}

impl Eq for Site {}

impl Site {
    /// An error `msg` about the declaration written here (at `fallback`'s file,
    /// as a whole-file error, when the site is unknown).
    pub fn error(&self, fallback: &str, msg: String) -> Diagnostic {
        match &self.0 {
            Some(d) => {
                let mut d = d.clone();
                d.msg = msg;
                d
            }
            None => Diagnostic::whole_file(fallback, msg),
        }
    }
}

/// How memory cells are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryKind {
    /// One copy of every location per node (sv): cells `x@n`.
    Replicated,
    /// One cell per location, on the location's home node (RDMA).
    Located,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memory {
    pub kind: MemoryKind,
    /// Locations hold tuples of their declared size (`size K`; msw).
    pub tuples: bool,
    /// `memory … undefined`: values are computed after the witness is chosen
    /// (coreRMA): a read reads ⊤ ("any value") unless a `defined` rule ties it
    /// to its rf source and no `undefined` rule makes it ⊤; writes may compute
    /// their values ([`ValExpr`]).
    pub undefined: bool,
}

/// The kind of a method parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A location; `local`: on the caller's node; `sized_like`: of the same tuple
    /// size as parameter i.
    Loc {
        local: bool,
        sized_like: Option<usize>,
    },
    /// A local source: a location or an integer literal (an implicit location).
    Src {
        local: bool,
    },
    /// Any value.
    Val,
    /// A tuple whose size is the size of location parameter i.
    Tuple(usize),
    Wid,
    Node,
    Nodes,
    Barrier,
    Ring,
}

/// The values a call may return (alternatives, in order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RetKind {
    /// Any value location parameter i may hold.
    ValueOf(usize),
    /// Any tuple of the size of location parameter i it may hold.
    TupleOf(usize),
    Bool,
    /// Any message (tuple) the program sends.
    Message,
    Bot,
    /// `sum(x)`: kept for files written before the value domain held the sums
    /// get-accumulates compute; now the same as `value(x)`.
    Sums(usize),
    /// The undefined value ⊤.
    Top,
}

/// A node in a stamping rule or an access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeExpr {
    /// The caller's node.
    Here,
    /// The variable of the enclosing `for` (stamping) or of the stamp's family
    /// index (access `aNRW_n writes x@n`).
    Var,
    /// A node parameter.
    Param(usize),
    /// The home node of location parameter i.
    NodeOf(usize),
}

/// A set of nodes in a stamping rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeSet {
    /// Every node of the program.
    All,
    /// A parameter of kind `nodes`.
    Param(usize),
    /// The nodes of the threads of object parameter i (a barrier's participants,
    /// a ring's readers).
    Of(usize),
    Minus(Box<NodeSet>, NodeExpr),
}

/// A value compared with the returned value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValRef {
    Bot,
    Bool(bool),
    Int(i64),
    Param(usize),
}

/// `ret == v` (or `!=`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cond {
    pub eq: bool,
    pub val: ValRef,
}

/// The stamping function of one method: a list of items.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StampItem {
    /// A single stamp, or a family member at a node.
    Stamp {
        kind: usize,
        node: Option<NodeExpr>,
    },
    For {
        set: NodeSet,
        body: Vec<StampItem>,
    },
    If {
        cond: Cond,
        then: Vec<StampItem>,
        els: Vec<StampItem>,
    },
}

/// The value of a memory access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AccVal {
    /// A read that reads anything (a NIC read).
    Free,
    /// A read that returns the call's returned value.
    Ret,
    /// A write of parameter i.
    Param(usize),
    /// A write of what the event's latest read (in stamp order) read.
    Copy,
    /// An integer literal: a read that reads exactly it, a write that writes it
    /// (a lock's `aCAS reads l = 0`, `aCAS writes l = 1`).
    Int(i64),
    /// A computed value (memory with `undefined`): `val(aX.k) + …`, `if … then … else …`.
    Expr(ValExpr),
    /// A read-modify-write's write, computed from what the call's latest read (in
    /// stamp order) read: `cas(e, v)` writes parameter v when the read value
    /// equals parameter e and nothing otherwise; `add(k)` writes the read value
    /// plus parameter k (an integer). Not with `undefined` memory.
    Rmw(RmwVal),
}

/// The operation of an [`AccVal::Rmw`] write, over parameter indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmwVal {
    Cas { expected: usize, new: usize },
    Add(usize),
}

impl RmwVal {
    /// The operation for a call with arguments `args`.
    pub fn op(self, args: &[mowgli_core::Value]) -> mowgli_core::memory::RmwOp {
        use mowgli_core::Value;
        let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Unit);
        match self {
            RmwVal::Cas { expected, new } => mowgli_core::memory::RmwOp::Cas { expected: arg(expected), new: arg(new) },
            RmwVal::Add(k) => mowgli_core::memory::RmwOp::Add(match arg(k) {
                Value::Int(i) => i,
                _ => 0,
            }),
        }
    }
}

/// The subevents of one call a name in a method body stands for: every
/// subevent with stamp `stamp`, or only the `occ`-th of them (1-based, `aNLR.2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubRef {
    pub stamp: usize,
    pub occ: Option<usize>,
}

/// A value computed by a write (memory with `undefined`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValExpr {
    Param(usize),
    Int(i64),
    /// `val(aX.k)`: what that subevent of the same call read.
    Read(SubRef),
    /// `a + b` (⊤ + v = ⊤).
    Add(Box<ValExpr>, Box<ValExpr>),
    /// `if a == b then t else e` (values compared as written: ⊤ equals ⊤).
    IfEq(Box<ValExpr>, Box<ValExpr>, Box<ValExpr>, Box<ValExpr>),
    /// `if S then t else e`, S one of the two sets of a `splits` witness (witness,
    /// first set?): t when the writing subevent is in S (coreRMA's CAS writes by the
    /// outcome chosen, which a comparison of ⊤ does not decide).
    IfIn(usize, bool, Box<ValExpr>, Box<ValExpr>),
}

impl ValExpr {
    /// How deep the tree is (a leaf: 1; the parser keeps it within the nesting limit).
    pub fn depth(&self) -> usize {
        use ValExpr::*;
        1 + match self {
            Add(a, b) | IfIn(_, _, a, b) => a.depth().max(b.depth()),
            IfEq(a, b, c, d) => a.depth().max(b.depth()).max(c.depth()).max(d.depth()),
            Param(_) | Int(_) | Read(_) => 0,
        }
    }
}

/// `aCR reads x@here = ret`: subevents of this method with stamp `stamp` read
/// (or write) the cell of location parameter `loc` (at `node`, replicated memory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    pub stamp: usize,
    /// `aX.k`: only the k-th subevent of stamp aX of the call (1-based).
    pub occ: Option<usize>,
    pub write: bool,
    pub loc: usize,
    pub node: Option<NodeExpr>,
    pub val: AccVal,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Method {
    pub name: String,
    pub params: Vec<(String, Kind)>,
    pub ret: Vec<RetKind>,
    pub readonly: bool,
    /// `readonly if ret != e`: a call that returns a value meeting the condition
    /// only reads (a failed compare-and-swap); the file claims it as for
    /// `readonly`, and the parser checks that no write access has a stamp the
    /// stamping gives under the condition.
    pub readonly_if: Option<Cond>,
    /// `completes d`: a call completes the calling thread's earlier calls naming
    /// the work identifier d (a `wid` parameter): their writes are ordered before
    /// everything the thread does after it. The file claims it; the reduction of
    /// retry loops rests on it (`mowgli_core::program::retry`).
    pub completes: Option<usize>,
    pub stamps: Vec<StampItem>,
    pub accesses: Vec<Access>,
    /// `aX.k in TAG`: the subevents put in a tag set ([`Spec::tags`]).
    pub tags: Vec<(SubRef, usize)>,
}

impl Method {
    /// Whether the stamping depends on the returned value (`if ret …`).
    pub fn stamps_depend_on_ret(&self) -> bool {
        fn dep(items: &[StampItem]) -> bool {
            items.iter().any(|i| match i {
                StampItem::Stamp { .. } => false,
                StampItem::For { body, .. } => dep(body),
                StampItem::If { .. } => true,
            })
        }
        dep(&self.stamps)
    }

    /// LOCO's "the call returns exactly what its one read reads" (the engine may
    /// then search all return values at once, `Library::symbolic_return`): the
    /// method returns `value(x)`, its stamping does not look at the returned
    /// value, and it has exactly one access, a read `= ret`.
    pub fn symbolic(&self) -> bool {
        let ret_ok = match self.ret.as_slice() {
            [RetKind::ValueOf(_), rest @ ..] => rest.iter().all(|r| matches!(r, RetKind::Sums(_) | RetKind::Top)),
            _ => false,
        };
        ret_ok
            && !self.stamps_depend_on_ret()
            && matches!(self.accesses.as_slice(), [Access { write: false, val: AccVal::Ret, .. }])
    }
}

/// A parameter of a method, or its returned value, in `same(M.p, N.q)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgRef {
    pub method: usize,
    /// `None`: the returned value.
    pub param: Option<usize>,
}

/// The relations every library may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// Program order between this library's subevents (of different events).
    Po,
    /// ppo (LOCO §3.1) between this library's subevents.
    Ppo,
    /// Inside one event: an earlier stamp before a later one.
    Int,
    /// The execution's happens-before (all libraries), hb = (ppo ∪ so)⁺.
    Hb,
    /// The identity on this library's subevents.
    Id,
    /// Same node: a family stamp's index, else the caller's node.
    SameNode,
    SameThread,
    /// Equal stamps (kind and index).
    SameStamp,
    /// Subevents accessing a common memory cell.
    SameLoc,
}

/// Object-based sets of subevents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjSet {
    /// The caller is a participant (barrier) or reader (ring) of the object.
    Participant,
    /// The caller is the ring's writer.
    Writer,
    /// Every participant of the object calls the method on it equally often (a
    /// count, which relations over events cannot say: a participant with no
    /// call has no event to relate).
    Balanced,
}

/// The type of an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Set,
    Rel,
}

/// A witness relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WitRel {
    Rf,
    Mo,
    Rb,
    /// A declared witness ([`Spec::witnesses`]).
    Named(usize),
}

/// A typed expression over subevents of one library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    // sets
    /// All subevents of the library.
    All,
    Stamp(usize),
    Method(usize),
    MethodStamp(usize, usize),
    /// Subevents that read memory / write memory.
    Reads,
    Writes,
    Obj(ObjSet, ArgRef),
    /// A tag set (`tags NA`, `aNLR in NA`).
    Tag(usize),
    /// Reads that read the initial value (a dynamic set).
    InitReads,
    /// One of the two sets of a `splits` witness: (witness, first set?).
    WitSet(usize, bool),
    /// `val_eq(r)`: the pairs of r whose two subevents may read equal values (equal
    /// as written, or one of them ⊤: the undefined value is any value; memory
    /// with `undefined`; known once the witness is complete).
    ValEq(Box<Expr>),
    /// `val_ne(r)`: the pairs of r whose two subevents may read different values
    /// (different as written, or one of them ⊤); known once the witness is complete.
    ValNe(Box<Expr>),
    Domain(Box<Expr>),
    Range(Box<Expr>),
    // relations
    Base(Base),
    Same(ArgRef, ArgRef),
    /// Calls of a method on the same object with the same rank among their
    /// thread's calls on it (LOCO Def. 4.1's ordering function o).
    SameRound(ArgRef),
    Wit(WitRel),
    /// `[S]`
    Ident(Box<Expr>),
    /// `S * S'`
    Prod(Box<Expr>, Box<Expr>),
    Inv(Box<Expr>),
    Plus(Box<Expr>),
    Star(Box<Expr>),
    Seq(Box<Expr>, Box<Expr>),
    // both
    Let(usize, Ty),
    Union(Box<Expr>, Box<Expr>),
    Inter(Box<Expr>, Box<Expr>),
    Diff(Box<Expr>, Box<Expr>),
    Empty(Ty),
    /// An evaluator's precomputed value (never in a parsed [`Spec`]).
    Const(usize, Ty),
}

impl Expr {
    /// Whether the expression depends on a witness or on hb (through `lets`).
    pub fn dynamic(&self, lets: &[Let]) -> bool {
        use Expr::*;
        match self {
            Wit(_) | Base(self::Base::Hb) | InitReads | WitSet(..) | ValEq(_) | ValNe(_) => true,
            Let(i, _) => lets[*i].dynamic,
            Domain(a) | Range(a) | Ident(a) | Inv(a) | Plus(a) | Star(a) => a.dynamic(lets),
            Prod(a, b) | Seq(a, b) | Union(a, b) | Inter(a, b) | Diff(a, b) => a.dynamic(lets) || b.dynamic(lets),
            _ => false,
        }
    }

    /// How deep its evaluation recurses: the tree's depth, where a `let` named
    /// counts as deep as its own definition (`lets[i]`, that let's depth; a
    /// let naming itself, `let rec`, is evaluated by a fixpoint, not recursively).
    pub fn eval_depth(&self, lets: &[usize]) -> usize {
        use Expr::*;
        match self {
            Let(i, _) => 1 + lets.get(*i).copied().unwrap_or(0),
            Domain(a) | Range(a) | Ident(a) | Inv(a) | Plus(a) | Star(a) | ValEq(a) | ValNe(a) => {
                1 + a.eval_depth(lets)
            }
            Prod(a, b) | Seq(a, b) | Union(a, b) | Inter(a, b) | Diff(a, b) => {
                1 + a.eval_depth(lets).max(b.eval_depth(lets))
            }
            _ => 1,
        }
    }

    /// How deep the tree is (a leaf: 1; the parser keeps it within
    /// [`mowgli_diag::MAX_NESTING`]).
    pub fn depth(&self) -> usize {
        use Expr::*;
        1 + match self {
            Domain(a) | Range(a) | Ident(a) | Inv(a) | Plus(a) | Star(a) | ValEq(a) | ValNe(a) => a.depth(),
            Prod(a, b) | Seq(a, b) | Union(a, b) | Inter(a, b) | Diff(a, b) => a.depth().max(b.depth()),
            _ => 0,
        }
    }

    /// Whether the expression only grows when the witness grows (every witness
    /// relation of a partial witness is a subset of the complete one's): true
    /// unless a dynamic expression is subtracted. Monotone parts are evaluated
    /// on partial witnesses (pruning); the others once the witness is complete.
    pub fn monotone(&self, lets: &[Let]) -> bool {
        use Expr::*;
        match self {
            Let(i, _) => lets[*i].monotone,
            ValEq(_) | ValNe(_) => false,
            Diff(a, b) => a.monotone(lets) && !b.dynamic(lets),
            Domain(a) | Range(a) | Ident(a) | Inv(a) | Plus(a) | Star(a) => a.monotone(lets),
            Prod(a, b) | Seq(a, b) | Union(a, b) | Inter(a, b) => a.monotone(lets) && b.monotone(lets),
            _ => true,
        }
    }

    /// Whether hb occurs (through `lets`).
    pub fn mentions_hb(&self, lets: &[Let]) -> bool {
        use Expr::*;
        match self {
            Base(self::Base::Hb) => true,
            Let(i, _) => lets[*i].hb,
            Domain(a) | Range(a) | Ident(a) | Inv(a) | Plus(a) | Star(a) | ValEq(a) | ValNe(a) => a.mentions_hb(lets),
            Prod(a, b) | Seq(a, b) | Union(a, b) | Inter(a, b) | Diff(a, b) => {
                a.mentions_hb(lets) || b.mentions_hb(lets)
            }
            _ => false,
        }
    }
}

/// `let name = expr`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Let {
    pub name: String,
    pub ty: Ty,
    pub expr: Expr,
    pub dynamic: bool,
    pub monotone: bool,
    pub hb: bool,
    /// `let rec`: the least fixpoint of its definition (with its clauses,
    /// `NAME |= E as RULE`); it may name itself.
    pub rec: bool,
    /// Where it is declared (its name).
    pub site: Site,
}

/// A witness declared with `witness`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WitnessKind {
    /// `witness nfo orients R`: every pair (a, b) of the static relation R is
    /// ordered one way or the other (one binary choice per pair).
    Orients(Expr),
    /// `witness rf picks R for S`: every subevent b of S picks one a with
    /// (a, b) ∈ R (the static candidates); the witness relates the pairs picked.
    Picks { cands: Expr, targets: Expr },
    /// `witness c orients R optionally`: every pair of R is ordered one way, the
    /// other, or not at all (three choices per pair).
    OrientsOptionally(Expr),
    /// `witness cas splits S into T, F`: every subevent of the static set S goes
    /// to set T or to set F (named by the two names).
    Splits { set: Expr, names: [String; 2] },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    pub name: String,
    pub kind: WitnessKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxiomKind {
    Acyclic,
    Irreflexive,
    Empty,
    /// `defined S as NAME` (memory with `undefined`): the reads of S read their
    /// rf source's value.
    Defined,
    /// `undefined S as NAME`: the reads of S read ⊤, whatever else holds.
    Undefined,
    /// `undefined final S as NAME`: a cell whose mo-last write is in S ends ⊤.
    FinalUndefined,
    /// `NAME |= E as RULE`: a named term of `let` number i (dropping it removes
    /// the term from the definition).
    Clause(usize),
}

/// `acyclic R as NAME`, `irreflexive R as NAME`, `empty R as NAME`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axiom {
    pub name: String,
    pub kind: AxiomKind,
    pub expr: Expr,
    /// Where it is stated (`file:line`), for reports.
    pub at: String,
}

/// A parsed library file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub name: String,
    pub stamps: Vec<StampDecl>,
    /// `memory …`: when present, rf and mo over the accesses are witnesses (with
    /// the derived rb) and reads must read their values (well-formedness).
    pub memory: Option<Memory>,
    pub methods: Vec<Method>,
    pub witnesses: Vec<Witness>,
    pub lets: Vec<Let>,
    /// The synchronisation order (LOCO Def. 3.6); `None`: empty.
    pub so: Option<Expr>,
    pub axioms: Vec<Axiom>,
    /// `tags A NA …`: sets of subevents named in method bodies (`aX in A`).
    pub tags: Vec<String>,
    /// `ppo own`: the library orders its own subevents (its so says how), the
    /// stamp order's ppo applies only between its subevents and other libraries'
    /// (`Library::own_program_order`).
    pub own_order: bool,
}

impl Spec {
    /// The same library without axiom `name` (`None` if it has none of that name).
    pub fn without_axiom(&self, name: &str) -> Option<Spec> {
        let mut s = self.clone();
        let before = s.axioms.len();
        s.axioms.retain(|a| a.name != name);
        s.refresh_flags();
        (s.axioms.len() < before).then_some(s)
    }

    /// Let `i`'s whole definition: its expression and its clauses (`|=`).
    pub fn let_expr(&self, i: usize) -> Expr {
        let mut e = self.lets[i].expr.clone();
        for a in &self.axioms {
            if a.kind == AxiomKind::Clause(i) {
                e = Expr::Union(Box::new(e), Box::new(a.expr.clone()));
            }
        }
        e
    }

    /// Recomputes the `dynamic`, `monotone` and `hb` flags of every `let` (in
    /// order) from its whole definition, clauses included.
    pub fn refresh_flags(&mut self) {
        for i in 0..self.lets.len() {
            let e = self.let_expr(i);
            let rec = self.lets[i].rec;
            if rec {
                // a recursive let names itself: start from the neutral flags
                let l = &mut self.lets[i];
                (l.dynamic, l.monotone, l.hb) = (true, true, false);
                let (m, h) = (e.monotone(&self.lets), e.mentions_hb(&self.lets));
                let l = &mut self.lets[i];
                (l.monotone, l.hb) = (m, h);
            } else {
                let f = (e.dynamic(&self.lets), e.monotone(&self.lets), e.mentions_hb(&self.lets));
                let l = &mut self.lets[i];
                (l.dynamic, l.monotone, l.hb) = f;
            }
        }
    }

    /// Whether values are computed after the witness (`memory … undefined`).
    pub fn computes_values(&self) -> bool {
        self.memory.is_some_and(|m| m.undefined)
    }

    pub fn method(&self, name: &str) -> Option<usize> {
        self.methods.iter().position(|m| m.name == name)
    }

    /// Builds the library under the stamp order in force.
    pub fn library(&self, order: &mowgli_core::StampOrder) -> Result<FileLibrary, String> {
        FileLibrary::new(self.clone(), order)
    }

    /// Whether the stamp order `order` has every stamp the library declares, of
    /// the same shape; if not, the error at the declaration (`file`: where the
    /// library was read, for a declaration without a site).
    pub fn check_stamps(&self, order: &mowgli_core::StampOrder, file: &str) -> Result<(), Diagnostic> {
        let Some(to) = order.table("to") else { return Ok(()) };
        for d in &self.stamps {
            eval::stamp_kind(&self.name, d, to).map_err(|msg| d.site.error(file, msg))?;
        }
        Ok(())
    }
}

/// Reads a library file (and the files it includes, relative to its folder).
pub fn parse_file(path: &Path) -> Result<Spec, Diagnostic> {
    let text = mowgli_diag::read_source(path, &path.display().to_string())?;
    parse::parse(&path.display().to_string(), &text, path.parent().map_or(Includes::None, Includes::Dir))
}

/// Parses library text; `include` is resolved relative to `dir` (none: not allowed).
pub fn parse_text(file: &str, text: &str, dir: Option<&Path>) -> Result<Spec, Diagnostic> {
    parse::parse(file, text, dir.map_or(Includes::None, Includes::Dir))
}

/// Parses library text whose `include`s are found in `files`, a table of
/// (file name, text) pairs (the libraries embedded in the binary).
pub fn parse_embedded(file: &str, text: &str, files: &[(&str, &str)]) -> Result<Spec, Diagnostic> {
    parse::parse(file, text, Includes::Embedded(files))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIB: &str = "library t\nstamps aCR aCW\nmemory located\n\
        method W(x: local loc, v: val) { stamps aCW\n aCW writes x = v }\n\
        method R(x: local loc) -> value(x) readonly { stamps aCR\n aCR reads x = ret }\n\
        let s = [aCW] ; po ; [aCR]\n\
        let m = rf \\ s\n\
        let nm = rf \\ (rf & s)\n\
        let h = hb ; rb\n\
        irreflexive h as hrb\n\
        empty nm as nonmono\n\
        so = m | s\n";

    #[test]
    fn classification_of_expressions() {
        let s = parse_text("t.lib", LIB, None).expect("parses");
        let l = |n: &str| s.lets.iter().find(|l| l.name == n).expect("let");
        assert!(!l("s").dynamic && l("s").monotone);
        assert!(l("m").dynamic && l("m").monotone && !l("m").hb);
        assert!(l("nm").dynamic && !l("nm").monotone);
        assert!(l("h").hb && l("h").monotone);
        assert!(s.methods[1].symbolic() && !s.methods[0].symbolic());
        assert_eq!(s.axioms.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), ["hrb", "nonmono"]);
        let w = s.without_axiom("hrb").expect("exists");
        assert_eq!(w.axioms.len(), 1);
        assert!(s.without_axiom("nope").is_none());
    }

    #[test]
    fn readonly_if_is_checked_against_the_writes() {
        let cas = |cond: &str| {
            format!(
                "library c\nstamps aCAS aMF aCR\nmemory located\n\
                 method CAS(x: local loc, e: val, v: val) -> value(x) readonly if ret {cond} e {{\n\
                 stamps if ret == e then {{ aCAS }} else {{ aMF, aCR }}\n aCAS reads x = ret\n aCAS writes x = v\n aCR reads x = ret\n}}\n"
            )
        };
        // a failed CAS (ret != e) has the stamps aMF, aCR, which do not write
        let s = parse_text("c.lib", &cas("!="), None).expect("parses");
        assert!(!s.methods[0].readonly && s.methods[0].readonly_if.is_some());
        // a successful one writes with aCAS: the claim is refused, at `if`
        let e = parse_text("c.lib", &cas("=="), None).expect_err("aCAS writes under ret == e");
        assert!(e.msg.contains("stamp `aCAS` writes"), "{}", e.msg);
        assert_eq!((e.pos().line, e.pos().col), (4, 63), "{}", e.msg);
    }

    #[test]
    fn completes_names_a_wid_parameter() {
        let wait = |p: &str, k: &str| {
            format!("library w\nstamps aWT\nmemory located\nmethod Wait(d: {k}) completes {p} {{\n stamps aWT\n}}\n")
        };
        let s = parse_text("w.lib", &wait("d", "wid"), None).expect("parses");
        assert_eq!(s.methods[0].completes, Some(0));
        // not a work identifier, or no such parameter: refused at the name
        for (p, k) in [("d", "val"), ("e", "wid")] {
            let e = parse_text("w.lib", &wait(p, k), None).expect_err("refused");
            assert!(e.msg.contains("a `wid` parameter"), "{}", e.msg);
            assert_eq!((e.pos().line, e.pos().col), (4, 31), "{}", e.msg);
        }
    }

    #[test]
    fn precedence() {
        let s = parse_text("t.lib", LIB, None).expect("parses");
        // rf \ [aCW]; po; [aCR] is rf \ ([aCW]; po; [aCR])
        assert!(
            matches!(&s.lets[1].expr, Expr::Diff(a, b) if matches!(**a, Expr::Wit(WitRel::Rf)) && matches!(**b, Expr::Let(0, Ty::Rel)))
        );
        let t = parse_text("t.lib", "library t\nstamps aCR\nlet x = po ; po & id | po\n", None).expect("parses");
        // ((po; po) & id) | po
        assert!(
            matches!(&t.lets[0].expr, Expr::Union(a, _) if matches!(&**a, Expr::Inter(b, _) if matches!(**b, Expr::Seq(..))))
        );
    }

    const VALUES: &str = "library v\nstamps aCR aCW aNLR_n aNRW_n\ntags A\nppo own\nmemory located undefined\n\
        method R(x: local loc) -> value(x) | sum(x) | top readonly { stamps aCR\n aCR reads x = ret\n aCR in A }\n\
        method Acc(z: loc, y: local src) { stamps aNLR[here], aNRW[node(z)]\n aNLR_n reads y\n aNRW_n reads z\n\
          aNRW_n writes z = if val(aNLR.1) == val(aNRW) then 0 else val(aNLR) + val(aNRW) }\n\
        witness o orients [aCR] ; po ; [aCR] optionally\n\
        witness c splits aNRW into yes, no\n\
        let rec h = h ; h | o\n\
        h |= po as P\n\
        h |= [A] ; rf as RF\n\
        irreflexive h as hb\n\
        defined R as def\n\
        undefined R & yes as undef\n\
        empty yes & range(val_eq([aNLR] ; int ; [aNRW])) as agree\n\
        so = h\n";

    #[test]
    fn value_rules_and_clauses_are_named_axioms() {
        let s = parse_text("v.lib", VALUES, None).unwrap_or_else(|d| panic!("{}", d.render()));
        assert!(s.own_order && s.computes_values());
        let h = s.lets.iter().position(|l| l.name == "h").expect("h");
        assert!(s.lets[h].rec && s.lets[h].dynamic && s.lets[h].monotone);
        let kinds: Vec<(&str, AxiomKind)> = s.axioms.iter().map(|a| (a.name.as_str(), a.kind)).collect();
        assert_eq!(
            kinds,
            [
                ("P", AxiomKind::Clause(h)),
                ("RF", AxiomKind::Clause(h)),
                ("hb", AxiomKind::Irreflexive),
                ("def", AxiomKind::Defined),
                ("undef", AxiomKind::Undefined),
                ("agree", AxiomKind::Empty),
            ]
        );
        // the whole definition of h has its two clauses; dropping one removes it
        assert!(matches!(s.let_expr(h), Expr::Union(..)));
        let w = s.without_axiom("RF").expect("exists");
        assert_eq!(w.axioms.iter().filter(|a| a.kind == AxiomKind::Clause(h)).count(), 1);
        // a computed value and an occurrence reference
        let acc = &s.methods[1];
        assert!(matches!(&acc.accesses[2].val, AccVal::Expr(ValExpr::IfEq(..))));
        assert_eq!(acc.accesses[0].occ, None);
        assert!(s.methods[0].symbolic(), "value(x) | sum(x) | top stays symbolic");
        // `val_eq` is known only on complete witnesses: not monotone
        assert!(!s.axioms[5].expr.monotone(&s.lets));
    }

    /// `if S then a else b` (S a set of a `splits` witness declared before the method)
    /// and `val_ne`.
    #[test]
    fn values_written_by_a_split_and_val_ne() {
        let text = "library v\nstamps aNLR_n aNRW_n\ntags A S\nppo own\nmemory located undefined\n\
            witness c splits S into yes, no\n\
            method Acc(z: loc, y: local src) { stamps aNLR[here], aNRW[node(z)]\n aNLR_n reads y\n aNRW_n reads z\n\
              aNRW_n writes z = if no then val(aNRW) else val(aNLR)\n aNRW in S }\n\
            empty (yes \\ range(val_eq([aNLR] ; int ; [aNRW]))) | (no \\ range(val_ne([aNLR] ; int ; [aNRW]))) as agree\n\
            so = po\n";
        let s = parse_text("v.lib", text, None).unwrap_or_else(|d| panic!("{}", d.render()));
        let acc = &s.methods[0];
        assert!(matches!(&acc.accesses[2].val, AccVal::Expr(ValExpr::IfIn(0, false, ..))));
        assert!(!s.axioms[0].expr.monotone(&s.lets));
    }

    /// `cas(e, v)` and `add(k)` writes (issue 33): parsed over parameters, refused
    /// without a read before them, with the wrong arguments, or on `undefined` memory.
    #[test]
    fn read_modify_write_writes() {
        let head = "library r\nstamps aCR aCAS\nmemory located\n";
        let ok = format!(
            "{head}method Cas(x: loc, e: val, v: val) {{ stamps aCAS\n aCAS reads x\n aCAS writes x = cas(e, v) }}\n\
             method Faa(x: loc, k: val) {{ stamps aCAS\n aCAS reads x\n aCAS writes x = add(k) }}\nso = po\n"
        );
        let s = parse_text("r.lib", &ok, None).unwrap_or_else(|d| panic!("{}", d.render()));
        assert_eq!(s.methods[0].accesses[1].val, AccVal::Rmw(RmwVal::Cas { expected: 1, new: 2 }));
        assert_eq!(s.methods[1].accesses[1].val, AccVal::Rmw(RmwVal::Add(1)));
        let bad = |text: String, want: &str| {
            let d = parse_text("r.lib", &text, None).expect_err("rejected");
            assert!(d.render().contains(want), "{}", d.render());
        };
        let m = |body: &str| format!("{head}method M(x: loc, e: val, v: val) {{ stamps aCAS\n {body} }}\n");
        bad(m("aCAS writes x = cas(e, v)"), "declare the read first");
        bad(m("aCAS reads x\n aCAS writes x = cas(e)"), "`cas` takes two parameters");
        bad(m("aCAS reads x\n aCAS writes x = add(e, v)"), "`add` takes one parameter");
        bad(m("aCAS reads x\n aCAS writes x = add(x)"), "is not a value parameter");
        let undef = "library r\nstamps aCAS\nmemory located undefined\n\
                     method M(x: loc, k: val) { stamps aCAS\n aCAS reads x\n aCAS writes x = add(k) }\n";
        bad(undef.to_string(), "need memory without `undefined`");
    }

    #[test]
    fn errors_of_the_value_language() {
        let bad = |text: &str, want: &str| {
            let d = parse_text("b.lib", text, None).expect_err("rejected");
            let r = d.render();
            assert!(r.contains(want), "{r}");
        };
        let head = "library b\nstamps aCR aCW\nmemory located\n";
        bad(&format!("{head}defined R as d\n"), "needs `memory … undefined`");
        bad(&format!("{head}let g = po\nh |= po as P\n"), "there is no `let h`");
        bad(&format!("{head}let rec g = g | po\ng |= aCR as P\n"), "is a relation");
        bad(&format!("{head}tags A\nmethod W(x: local loc) {{ stamps aCW\n aCW in B }}\n"), "unknown tag `B`");
        bad(
            "library b\nstamps aCR aCW\nmemory located undefined\nmethod W(x: local loc, v: val) { stamps aCW\n aCW writes x = val(aCR) + w }\n",
            "unknown value `w`",
        );
        bad(&format!("{head}witness c splits aCR into a, a\n"), "different names");
    }
}
