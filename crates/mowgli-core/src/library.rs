//! Libraries `⟨M, loc, C⟩` (LOCO Def. 3.5) and the interface the engines use to
//! search a library's consistency witnesses (rf, mo, …).

pub use crate::domain::{ValueDomain, Written};
use crate::exec::ExecGraph;
use crate::model::{Event, LibId, LocId, MethodId, ThreadId, Value, World};
use crate::program::retry::Footprint;
use crate::rel::BitRel;
pub use crate::signature::{Callers, MemoryShape, MethodSig, Param, Related, Ret, Role, Variant};
use crate::stamp::{NodeId, Stamp, StampTable};

/// A memory cell: a location, and the copy's node for a replicated location.
pub type Cell = (LocId, Option<NodeId>);

/// What a call may write, read off its signature alone (the default of
/// [`crate::Library::writes`]): each value argument to each location it names (a
/// value sent as a message when it names none); a call naming several locations
/// (a put or a get) may also copy any value of one to the others.
pub fn writes_by_signature(params: &[Param], args: &[Value], dom: &ValueDomain, out: &mut Vec<Written>) {
    let is_loc = |(a, k): (&Value, &Param)| match (k, a) {
        (Param::Loc | Param::Src, Value::Loc(l)) => Some(*l),
        _ => None,
    };
    let vals = || args.iter().zip(params).filter(|(_, k)| **k == Param::Val).map(|(a, _)| a);
    let nlocs = args.iter().zip(params).filter_map(is_loc).count();
    if nlocs == 0 {
        out.extend(vals().map(|v| Written { loc: None, value: v.clone(), derived: false, copied: false }));
        return;
    }
    for l in args.iter().zip(params).filter_map(is_loc) {
        out.extend(vals().map(|v| Written { loc: Some(l), value: v.clone(), derived: false, copied: false }));
        if nlocs > 1 {
            for m in args.iter().zip(params).filter_map(is_loc).filter(|&m| m != l) {
                out.extend(dom.at(m).iter().map(|v| Written {
                    loc: Some(l),
                    value: v.clone(),
                    derived: true,
                    copied: true,
                }));
            }
        }
    }
}

/// What a library contributes to an execution once its witness is fully chosen.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FinalValue {
    pub loc: LocId,
    /// The copy, for replicated locations.
    pub node: Option<NodeId>,
    pub value: Value,
}

/// A library: methods, loc, the stamping function, and the consistency predicate
/// presented as a search over witnesses.
pub trait Library: Send + Sync {
    fn name(&self) -> &str;
    fn methods(&self) -> &[MethodSig];
    /// How the library lays out its memory.
    fn memory(&self) -> MemoryShape {
        MemoryShape::default()
    }
    /// What the library declares of its variant `v` (none by default).
    fn variant(&self, _v: Variant) -> Related {
        Related::Unrelated
    }
    fn method_id(&self, name: &str) -> Option<MethodId> {
        self.methods().iter().position(|m| m.name == name)
    }
    /// Checks a call's arguments against the world (e.g. "respects nodes");
    /// `Err` names the offending argument.
    fn check_call(&self, world: &World, thread: ThreadId, method: MethodId, args: &[Value]) -> Result<(), String>;
    /// `loc(e)`.
    fn locs(&self, e: &Event) -> Vec<LocId>;
    /// `stmp_L(e)`.
    fn stamps(&self, world: &World, e: &Event) -> Vec<Stamp>;
    /// The values a call may return.
    fn returns(
        &self,
        world: &World,
        thread: ThreadId,
        method: MethodId,
        args: &[Value],
        dom: &ValueDomain,
    ) -> Vec<Value>;
    /// The values a call may return, knowing the calls its thread made before
    /// (`history`, all libraries; this library is number `me`): e.g. RDMA^TSO's
    /// put/get identifiers and polls (LOCO App. F.1) are determined by them.
    #[allow(clippy::too_many_arguments)]
    fn returns_after(
        &self,
        world: &World,
        thread: ThreadId,
        _me: LibId,
        _history: &[crate::program::CallRecord],
        method: MethodId,
        args: &[Value],
        dom: &ValueDomain,
    ) -> Vec<Value> {
        self.returns(world, thread, method, args, dom)
    }
    /// Every value a call may write, per location (or as a message), when the
    /// program's reads return values of `dom`: an over-approximation, appended to
    /// `out`, closed under what the library computes (literals of its own, values
    /// copied, sums, CAS outcomes). The value domain of a run is the fixpoint of
    /// these ([`crate::domain`]): a value missing here is an outcome lost. The
    /// default reads the signature alone ([`writes_by_signature`]).
    fn writes(
        &self,
        _world: &World,
        _thread: ThreadId,
        method: MethodId,
        args: &[Value],
        dom: &ValueDomain,
        out: &mut Vec<Written>,
    ) {
        if let Some(sig) = self.methods().get(method) {
            writes_by_signature(&sig.params, args, dom, out);
        }
    }
    /// The values the library's methods may write whatever the program (its own
    /// literals, e.g. a lock's `writes l = 1`): constants of every program over it.
    fn constants(&self) -> Vec<Value> {
        vec![]
    }
    /// Whether some method may write a value that is neither an argument, nor a
    /// constant, nor a copy of a value read (a sum, say): then a program's value
    /// domain is a fixpoint over its unfoldings even when the program itself
    /// computes nothing.
    fn computes_values(&self) -> bool {
        false
    }
    /// Whether the library orders its own subevents by its own program-order
    /// tables (a whole-program memory model such as RDMA^TSO with Fig. 9's
    /// ippo/oppo): then the framework's ppo is not applied between two of its
    /// subevents, only between its subevents and other libraries'.
    fn own_program_order(&self) -> bool {
        false
    }
    /// Whether a call of `method` returns exactly the value its single read subevent
    /// reads, and nothing else (stamps, other conditions) depends on the returned
    /// value. The engine may then leave the return value open in the plain
    /// execution (one search for all the values the call may return, instead of one
    /// plain execution per value) and read it back with [`WitnessSearch::returned`].
    fn symbolic_return(&self, _method: MethodId) -> bool {
        false
    }
    /// The memory cell (location, and the copy's node for a replicated location)
    /// whose value a call with a symbolic return value returns.
    fn read_cell(&self, _world: &World, _thread: ThreadId, _method: MethodId, _args: &[Value]) -> Option<Cell> {
        None
    }
    /// The cells a call writes: each with `Some(v)` when the calling thread's CPU
    /// writes value `v` there in program order (a plain CPU write), `None` for any
    /// other write (a NIC write, an atomic update).
    fn written_cells(
        &self,
        _world: &World,
        _thread: ThreadId,
        _method: MethodId,
        _args: &[Value],
    ) -> Vec<(Cell, Option<Value>)> {
        vec![]
    }
    /// Whether a call of `method` only reads: removing such an event from a
    /// consistent execution (nothing reads from it) leaves it consistent. The
    /// implementation language uses it to recognise spin loops (see `Prog::Spin`).
    fn read_only(&self, _method: MethodId) -> bool {
        false
    }
    /// Whether this call, with the value it returned, only reads (as
    /// [`Library::read_only`], for this call alone): e.g. a compare-and-swap that
    /// failed. A library says so in its declaration; by default only calls of
    /// read-only methods are.
    fn read_only_as_made(&self, method: MethodId, _args: &[Value], _ret: &Value) -> bool {
        self.read_only(method)
    }
    /// What a call of `method` with arguments `args` does to memory, as the
    /// declaration says ([`Footprint`]): retry loops drop failed attempts by it
    /// (`Prog::Retry`). `None` (the default): not declared.
    fn footprint(&self, _method: MethodId, _args: &[Value]) -> Option<Footprint> {
        None
    }
    /// A witness search over this library's part of `g` (the events whose `lib` is
    /// `me`); `to` is the stamp order in force.
    fn search<'a>(&'a self, g: &'a ExecGraph<'a>, to: &'a StampTable, me: LibId) -> Box<dyn WitnessSearch + 'a>;
    /// [`Library::search`], or `None` when the library sees at once that `g` has
    /// no witness because some variable of the search would have an empty domain
    /// (a read no write can supply): a cheaper answer for a search that would
    /// stop there. Never `None` for a graph whose search has no empty domain.
    fn viable_search<'a>(
        &'a self,
        g: &'a ExecGraph<'a>,
        to: &'a StampTable,
        me: LibId,
    ) -> Option<Box<dyn WitnessSearch + 'a>> {
        Some(self.search(g, to, me))
    }
    /// Why the library's search cannot take `g` (its part: the events whose `lib`
    /// is `me`), when a limit of its own stops it (e.g. a bound on the size of an
    /// execution): the engine then reports the run as cut by a limit. `None` (the
    /// default): no such limit.
    fn limit(&self, _g: &ExecGraph, _me: LibId) -> Option<String> {
        None
    }
}

/// A library shared by several holders (e.g. one built once and used by every
/// client of a run): every method is the shared library's own, defaults included.
impl<L: Library + ?Sized> Library for std::sync::Arc<L> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn methods(&self) -> &[MethodSig] {
        (**self).methods()
    }
    fn memory(&self) -> MemoryShape {
        (**self).memory()
    }
    fn variant(&self, v: Variant) -> Related {
        (**self).variant(v)
    }
    fn method_id(&self, name: &str) -> Option<MethodId> {
        (**self).method_id(name)
    }
    fn check_call(&self, world: &World, thread: ThreadId, method: MethodId, args: &[Value]) -> Result<(), String> {
        (**self).check_call(world, thread, method, args)
    }
    fn locs(&self, e: &Event) -> Vec<LocId> {
        (**self).locs(e)
    }
    fn stamps(&self, world: &World, e: &Event) -> Vec<Stamp> {
        (**self).stamps(world, e)
    }
    fn returns(
        &self,
        world: &World,
        thread: ThreadId,
        method: MethodId,
        args: &[Value],
        dom: &ValueDomain,
    ) -> Vec<Value> {
        (**self).returns(world, thread, method, args, dom)
    }
    fn returns_after(
        &self,
        world: &World,
        thread: ThreadId,
        me: LibId,
        history: &[crate::program::CallRecord],
        method: MethodId,
        args: &[Value],
        dom: &ValueDomain,
    ) -> Vec<Value> {
        (**self).returns_after(world, thread, me, history, method, args, dom)
    }
    fn writes(
        &self,
        world: &World,
        thread: ThreadId,
        method: MethodId,
        args: &[Value],
        dom: &ValueDomain,
        out: &mut Vec<Written>,
    ) {
        (**self).writes(world, thread, method, args, dom, out)
    }
    fn constants(&self) -> Vec<Value> {
        (**self).constants()
    }
    fn computes_values(&self) -> bool {
        (**self).computes_values()
    }
    fn own_program_order(&self) -> bool {
        (**self).own_program_order()
    }
    fn symbolic_return(&self, method: MethodId) -> bool {
        (**self).symbolic_return(method)
    }
    fn read_cell(&self, world: &World, thread: ThreadId, method: MethodId, args: &[Value]) -> Option<Cell> {
        (**self).read_cell(world, thread, method, args)
    }
    fn written_cells(
        &self,
        world: &World,
        thread: ThreadId,
        method: MethodId,
        args: &[Value],
    ) -> Vec<(Cell, Option<Value>)> {
        (**self).written_cells(world, thread, method, args)
    }
    fn read_only(&self, method: MethodId) -> bool {
        (**self).read_only(method)
    }
    fn read_only_as_made(&self, method: MethodId, args: &[Value], ret: &Value) -> bool {
        (**self).read_only_as_made(method, args, ret)
    }
    fn footprint(&self, method: MethodId, args: &[Value]) -> Option<Footprint> {
        (**self).footprint(method, args)
    }
    fn search<'a>(&'a self, g: &'a ExecGraph<'a>, to: &'a StampTable, me: LibId) -> Box<dyn WitnessSearch + 'a> {
        (**self).search(g, to, me)
    }
    fn viable_search<'a>(
        &'a self,
        g: &'a ExecGraph<'a>,
        to: &'a StampTable,
        me: LibId,
    ) -> Option<Box<dyn WitnessSearch + 'a>> {
        (**self).viable_search(g, to, me)
    }
    fn limit(&self, g: &ExecGraph, me: LibId) -> Option<String> {
        (**self).limit(g, me)
    }
}

/// A backtracking search over a library's witnesses. Variables have static
/// finite domains; the engine assigns them in order `0..num_vars()` and calls
/// [`WitnessSearch::check`] after each assignment. `check` must be *monotone*:
/// if it fails for a partial assignment, it fails for every extension, so the
/// engine can prune.
pub trait WitnessSearch {
    fn num_vars(&self) -> usize;
    fn domain(&self, var: usize) -> usize;
    /// Sets (`Some`) or clears (`None`) a variable.
    fn assign(&mut self, var: usize, val: Option<usize>);
    /// Adds to `so` the synchronisation order implied by the current (partial)
    /// assignment; returns `false` if the assignment already violates the
    /// library's own conditions. `hb` is a lower bound of the execution's
    /// happens-before, for libraries whose predicate mentions it.
    fn check(&mut self, hb: &BitRel, so: &mut BitRel) -> bool;
    /// Conditions that mention hb (e.g. `hb⁻¹ ∩ fb = ∅`), checked against the
    /// execution's least hb = (ppo ∪ so)⁺ once it is known to be acyclic. Must be
    /// monotone in the partial witness, like [`WitnessSearch::check`].
    fn check_hb(&self, _hb: &BitRel) -> bool {
        true
    }
    /// Whether [`WitnessSearch::check_hb`] does anything (saves computing hb).
    fn needs_hb(&self) -> bool {
        false
    }
    /// How many complete witnesses a naive enumeration would try for this plain
    /// execution: every rf choice of the same location regardless of values,
    /// every mo permutation, every nfo orientation.
    fn naive_count(&self) -> f64 {
        (0..self.num_vars()).map(|v| self.domain(v) as f64).product()
    }
    /// Whether variable `var` is existential: its value matters for consistency
    /// only, never for [`WitnessSearch::finals`] or [`WitnessSearch::returned`]
    /// (e.g. RDMA's NIC flush order nfo). An engine computing outcomes may stop at
    /// the first consistent choice of these once the others are fixed.
    fn existential(&self, _var: usize) -> bool {
        false
    }
    /// Whether variable `var` can change a value [`WitnessSearch::returned`]
    /// gives (or whether a plain execution's fixed return values are possible).
    /// Variables that cannot (e.g. the coherence order mo, which decides final
    /// values only) are existential for an engine that computes register
    /// outcomes only. Existential variables never affect returns.
    fn affects_returns(&self, var: usize) -> bool {
        !self.existential(var)
    }
    /// The value returned by event `event` (whose return value is symbolic, see
    /// [`Library::symbolic_return`]) under the current complete assignment.
    fn returned(&self, _event: usize) -> Option<Value> {
        None
    }
    /// The subevents whose witness relations variable `var` decides (a read's rf
    /// source: the read; a write's place in mo: the write; an orientation: its
    /// pair). Engines use it to search first the variables that matter for a
    /// property about some subevents; empty when unknown.
    fn var_subevents(&self, _var: usize) -> Vec<usize> {
        Vec::new()
    }
    /// Final values of memory, for a complete assignment.
    fn finals(&self, out: &mut Vec<FinalValue>);
    /// Named witness relations of a complete assignment (for printing executions).
    fn relations(&self) -> Vec<(String, BitRel)>;
    /// The predicate as data, with the same variables in the same order, for a
    /// symbolic engine (see [`crate::symbolic`]); `None` when the library's
    /// predicate does not have that shape.
    fn relspec(&self) -> Option<crate::symbolic::RelSpec> {
        None
    }
    /// For a complete assignment: whether it makes a candidate execution at all
    /// (values, identifiers), and if so whether the candidate is consistent by the
    /// library's own conditions, and if not the axiom it breaks with a cycle that
    /// shows it ([`crate::explain`]). `None`: the library cannot say (the
    /// default). Only the library's own conditions: Λ-consistency's hb
    /// acyclicity across libraries is the caller's.
    fn explain(&self) -> Option<crate::explain::Candidate> {
        None
    }
}

/// Λ-consistency (LOCO Def. 3.6) of the current (partial) witnesses, with the least
/// hb = (ppo ∪ so)⁺: every library's own conditions hold and hb is a strict partial
/// order (ppo ∪ ⋃_L so_L is acyclic). By monotonicity (Def. 3.5) an execution is
/// Λ-consistent for some hb iff it is for this one. Returns so when consistent.
pub fn lambda_consistent(g: &ExecGraph, searches: &mut [Box<dyn WitnessSearch + '_>]) -> Option<BitRel> {
    let mut so = BitRel::new(g.len());
    for s in searches.iter_mut() {
        if !s.check(&g.ppo, &mut so) {
            return None;
        }
    }
    let mut hb = so.clone();
    hb.union_with(&g.ppo);
    if !hb.is_acyclic() {
        return None;
    }
    if searches.iter().any(|s| s.needs_hb()) {
        hb.close_transitively();
        if !searches.iter().all(|s| s.check_hb(&hb)) {
            return None;
        }
    }
    Some(so)
}
