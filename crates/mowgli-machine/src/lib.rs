//! The RDMA^TSO operational semantics of "Semantics of RDMA" (Ambal et al., OOPSLA
//! 2024), §3.1-3.3, as an explicit-state explorer: a second engine for the
//! programs of the `rdmatso` / `rdmatso_nopcie` (and `rdmatso_f1`) libraries,
//! independent of the declarative model (`mowgli-libs`), which it only shares
//! the program meta-language with (`mowgli-core`).
//!
//! * [`Machine::Concrete`]: Fig. 7 — per thread a store buffer, per (thread,
//!   remote node) queue pair six FIFO buffers req_L, in_R, wb_R, out_R, rsp_L,
//!   wb_L, with the get steps G1-G6 and put steps P1-P5 of p. 11.
//! * [`Machine::Simplified`]: App. B, Fig. 19-20 — the four middle buffers merged
//!   into one `pipe`.
//! * Each with the PCIe guarantee or without it (§3.2, "Operational Semantics
//!   without PCIe": the highlighted premises of P1 and G3 replaced by reading
//!   through wb_L, resp. wb_R).
//!
//! * Remote RMWs (issue 33 item 1): `RCAS`/`RFAA` travel as gets (rules
//!   [`Rule::A1`], [`Rule::A2`]), the remote NIC reads and writes the target in
//!   one step ([`Rule::A3`], [`Rule::SA13`]) of an atomic unit shared by that
//!   NIC's RMWs only ([`Atomicity::Hca`]) or by every access
//!   ([`Atomicity::Global`]), and the old value comes back as a get's (G4-G6).
//!   See docs/design.md, "Remote RMWs in the machines (issue 33 item 1)".
//!
//! Buffers are stored oldest first: index 0 is the head (the paper writes
//! sequences with the head on the right, `α · e` has head `e`, and adds new
//! entries on the left).
//!
//! The state space is explored (`explore.rs`) with a visited set of flat states
//! (`state.rs`) and, optionally, a
//! partial-order reduction: transitions that commute with every other
//! transition and that no other transition can disable are taken eagerly, alone
//! (singleton persistent sets, see [`Explorer::eager`] and docs/design.md,
//! "Operational engine").

mod apply;
mod error;
mod explore;
pub use explore::explore;
pub mod graph;
mod rule;
mod state;
pub mod trie;

pub use rule::Rule;
pub use state::State;
use state::*;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use mowgli_core::program::Prog;
use mowgli_core::{Library, Related, Value, ValueDomain, Variant, World};

use graph::Graph;
use trie::{FNode, FOp, Op, Trie};

pub use error::MachineError;

/// Which machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Machine {
    /// Six buffers per queue pair (§3.2, Fig. 7).
    Concrete,
    /// Three buffers per queue pair (§3.3, App. B, Fig. 19-20).
    Simplified,
}

/// The scope of a remote RMW's atomicity (issue 33; verbs' `IBV_ATOMIC_HCA`
/// and `IBV_ATOMIC_GLOB`). See docs/design.md, "Remote RMWs in the machines".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Atomicity {
    /// Atomic against the remote RMWs of the same NIC only (the default, and what
    /// the 2026 follow-up paper calls weak): the RMW's write waits in wb_R like a
    /// put's, and CPU writes and put writes may land between its read and its write.
    #[default]
    Hca,
    /// Atomic against every access: the RMW's write reaches memory in the same
    /// step as its read.
    Global,
}

#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub machine: Machine,
    /// With the PCIe guarantee; `None`: from the library (`rdmatso_nopcie` has none).
    /// [`Explorer::with_options`] also runs a library it does not know by name
    /// when this is given and the library declares only methods the machine
    /// knows ([`trie::METHODS`]).
    pub pcie: Option<bool>,
    /// The atomicity of remote RMWs (RCAS, RFAA); no effect on programs without them.
    pub atomics: Atomicity,
    /// The partial-order reduction (eager independent transitions).
    pub reduce: bool,
    pub max_states: usize,
    /// At most this many words (4 bytes) in the states held: an exploration's
    /// memory grows with the states' size as well as their number.
    pub max_words: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            machine: Machine::Concrete,
            pcie: None,
            atomics: Atomicity::Hca,
            reduce: true,
            max_states: 5_000_000,
            max_words: 64_000_000,
        }
    }
}

/// A program over RDMA^TSO: what the litmus front end lowers a test to.
pub struct Program<'a> {
    pub world: &'a World,
    pub libs: &'a [&'a dyn Library],
    pub threads: &'a [(Prog, usize)],
    pub domain: &'a ValueDomain,
    pub loop_bound: usize,
}

/// A final outcome, in the shape of the declarative engine's: every thread's
/// registers, and the final value of every declared location (key: location,
/// copy node — always `None` here: RDMA locations live on one node).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Outcome {
    pub regs: Vec<Vec<Option<Value>>>,
    pub finals: BTreeMap<(usize, Option<u32>), Value>,
}

/// What exploring the state space found.
#[derive(Clone, Debug, Default)]
pub struct Explored {
    pub outcomes: BTreeSet<Outcome>,
    /// Distinct states visited.
    pub states: usize,
    /// Transitions taken (including the eager ones folded into a state's successors).
    pub transitions: usize,
    /// States with no transition that are not final (a poll that never returns, a
    /// loop past its unrolling bound).
    pub deadlocks: usize,
    /// A loop reached the unrolling bound.
    pub bounded: bool,
    pub micros: u128,
}

/// An event of the run: thread and index of the call in the thread.
pub type Ev = (u16, u16);

/// One transition: the rule, the thread, the queue pair's node (for queue-pair
/// rules), a position (G3/SP1/SP2/SG14/G6/SG6/A3/SA13: which entry) and a choice (which
/// child of the thread's call, for set operations with two possible values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    pub rule: Rule,
    pub thread: usize,
    pub node: Option<u32>,
    pub pos: usize,
    pub choice: usize,
}

/// Where a value was read from: a pending write in a buffer, or memory.
#[derive(Clone, Copy, Debug)]
pub enum Src {
    Entry(Ev, u8),
    Memory,
}

/// A remote RMW command with interned operands: `dst` (local, receives the old
/// value), `tgt` (the target, on the node the RMW is issued towards).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RmwOp {
    pub(crate) dst: u32,
    pub(crate) tgt: u32,
    pub(crate) kind: RmwKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RmwKind {
    /// RCAS: expected and new value (interned).
    Cas { expected: u32, new: u32 },
    /// RFAA: the increment.
    Faa { add: i64 },
}

/// `old + k` for RFAA: integers only (wrapping). `None` (no write, as a failed
/// RCAS) when the old value is not an integer.
fn faa_sum(old: &Value, add: i64) -> Option<Value> {
    match old {
        Value::Int(i) => Some(Value::Int(i.wrapping_add(add))),
        _ => None,
    }
}

pub struct Explorer<'a> {
    pub prog: &'a Program<'a>,
    pub tries: Vec<Trie>,
    pub machine: Machine,
    pub pcie: bool,
    /// The atomicity of remote RMWs.
    pub atomics: Atomicity,
    /// The remote RMW commands of the program ([`FOp::Rmw`] and RMW entries
    /// hold an index in it).
    rmws: Vec<RmwOp>,
    /// The index of each interned value.
    ids: HashMap<Value, u32>,
    nodes: Vec<u32>,
    /// The interned values: every value a location, an entry or a call's result can hold.
    vals: Vec<Value>,
    /// Per thread, its call tree with interned values (parallel to `tries`).
    fnodes: Vec<Vec<FNode>>,
    /// Home node of each location.
    homes: Vec<u32>,
    /// Locations, buffers: the layout of [`State::w`].
    nlocs: usize,
    nbufs: usize,
}

/// Whether the library is one whose programs the machine runs, and its PCIe flag,
/// read off its declaration: every method a primitive command of the machine
/// ([`library_declares_machine_methods`]) and a declared path to memory, in order
/// (PCIe, [`Variant::OrderedPath`]) or not ([`Variant::UnorderedPath`]).
pub fn library_pcie(lib: &dyn Library) -> Option<bool> {
    if !library_declares_machine_methods(lib) {
        return None;
    }
    if lib.variant(Variant::OrderedPath) == Related::Itself {
        Some(true)
    } else if lib.variant(Variant::UnorderedPath) == Related::Itself {
        Some(false)
    } else {
        None
    }
}

/// The atomicity of the library's remote RMWs, as it declares it
/// ([`Variant::GlobalRmw`]; by default HCA, atomic against RMWs only).
pub fn library_atomics(lib: &dyn Library) -> Atomicity {
    if lib.variant(Variant::GlobalRmw) == Related::Itself {
        Atomicity::Global
    } else {
        Atomicity::Hca
    }
}

/// Whether every method the library declares is a primitive command of the
/// machine (by name, [`trie::METHODS`]): such a library's programs run on the
/// machine with [`Explorer::with_options`] when the PCIe flag is given.
pub fn library_declares_machine_methods(lib: &dyn Library) -> bool {
    lib.methods().iter().all(|m| trie::METHODS.contains(&m.name))
}

impl<'a> Explorer<'a> {
    /// The machine for a program over a library it runs ([`library_pcie`]: the
    /// rdmatso libraries and the `rdmatso_rmw` ones), with the PCIe flag and the
    /// RMWs' atomicity the library declares ([`library_atomics`]).
    pub fn new(prog: &'a Program<'a>, machine: Machine, pcie: Option<bool>) -> Result<Self, MachineError> {
        let atomics = prog.libs.first().map_or(Atomicity::Hca, |l| library_atomics(*l));
        Self::build(prog, machine, pcie, atomics, false)
    }

    /// The machine of `opts` (machine, PCIe flag, atomicity of remote RMWs) for a
    /// program over one of the libraries [`Explorer::new`] takes, or, when
    /// `opts.pcie` is given, over any library that declares only methods the
    /// machine knows ([`library_declares_machine_methods`]; e.g. a test library
    /// with the eleven rdmatso methods and `RCAS`, `RFAA`).
    pub fn with_options(prog: &'a Program<'a>, opts: &Options) -> Result<Self, MachineError> {
        Self::build(prog, opts.machine, opts.pcie, opts.atomics, opts.pcie.is_some())
    }

    fn build(
        prog: &'a Program<'a>,
        machine: Machine,
        pcie: Option<bool>,
        atomics: Atomicity,
        by_declaration: bool,
    ) -> Result<Self, MachineError> {
        let mut flag = None;
        for l in prog.libs {
            match library_pcie(*l) {
                Some(p) => flag = Some(p),
                None if by_declaration && library_declares_machine_methods(*l) => {}
                None => return Err(MachineError::Unsupported(format!("library `{}`", l.name()))),
            }
        }
        if prog.libs.len() > 1 {
            return Err(MachineError::Unsupported("programs over more than one library".into()));
        }
        if prog.world.locs.iter().any(|l| l.home.is_none()) {
            return Err(MachineError::Unsupported("replicated locations".into()));
        }
        if prog.threads.len() > u16::MAX as usize {
            return Err(MachineError::Unsupported("that many threads".into()));
        }
        if prog.world.locs.len() >= 1 << 24 || prog.world.nodes.iter().any(|&n| n >= 1 << 24) {
            return Err(MachineError::Unsupported("that many locations or nodes".into()));
        }
        let pcie = pcie.or(flag).unwrap_or(true);
        let mut tries = Vec::new();
        for (t, (p, n)) in prog.threads.iter().enumerate() {
            tries.push(trie::build(prog.world, prog.libs, prog.domain, t, p, *n, prog.loop_bound)?);
        }
        // intern every value: initial values, the values calls write, the values
        // calls may return (reads' candidates, identifiers); memory and entries
        // only ever hold these
        let mut vals: Vec<Value> = Vec::new();
        let mut ids: HashMap<Value, u32> = HashMap::new();
        fn intern_in(vals: &mut Vec<Value>, ids: &mut HashMap<Value, u32>, v: &Value) -> u32 {
            if let Some(&i) = ids.get(v) {
                return i;
            }
            vals.push(v.clone());
            ids.insert(v.clone(), vals.len() as u32 - 1);
            vals.len() as u32 - 1
        }
        let mut intern = |v: &Value| -> u32 { intern_in(&mut vals, &mut ids, v) };
        for l in &prog.world.locs {
            intern(&l.init);
        }
        let mut fnodes = Vec::new();
        let mut rmws: Vec<RmwOp> = Vec::new();
        let mut faa_adds: Vec<i64> = Vec::new();
        let mut faa_calls = 0usize;
        for tr in &tries {
            let mut fs = Vec::with_capacity(tr.nodes.len());
            for n in &tr.nodes {
                let mut rmw = |r: RmwOp| -> FOp {
                    let i = rmws.iter().position(|q| *q == r).unwrap_or_else(|| {
                        rmws.push(r);
                        rmws.len() - 1
                    });
                    FOp::Rmw(i as u32)
                };
                let op = n.call.as_ref().map(|c| match &c.op {
                    Op::Read(x) => FOp::Read(*x as u32),
                    Op::Write(x, v) => FOp::Write(*x as u32, intern(v)),
                    Op::Cas(x, e, v) => FOp::Cas(*x as u32, intern(e), intern(v)),
                    Op::Mfence => FOp::Mfence,
                    Op::Put { dst, src } => FOp::Put { dst: *dst as u32, src: *src as u32 },
                    Op::Get { dst, src } => FOp::Get { dst: *dst as u32, src: *src as u32 },
                    Op::Poll(m) => FOp::Poll(*m),
                    Op::Rfence(m) => FOp::Rfence(*m),
                    Op::SetOp(_) => FOp::SetOp,
                    Op::Rcas { dst, tgt, expected, new } => rmw(RmwOp {
                        dst: *dst as u32,
                        tgt: *tgt as u32,
                        kind: RmwKind::Cas { expected: intern(expected), new: intern(new) },
                    }),
                    Op::Rfaa { dst, tgt, add } => {
                        faa_calls += 1;
                        if !faa_adds.contains(add) {
                            faa_adds.push(*add);
                        }
                        rmw(RmwOp { dst: *dst as u32, tgt: *tgt as u32, kind: RmwKind::Faa { add: *add } })
                    }
                });
                let kids = n.kids.iter().map(|(v, k)| (intern(v), *k)).collect();
                fs.push(FNode { op, kids, depth: n.depth, leaf: n.leaf.is_some() });
            }
            fnodes.push(fs);
        }
        if rmws.len() >= 1 << 24 {
            return Err(MachineError::Unsupported("that many remote RMW commands".into()));
        }
        // the values RFAAs compute: a run makes at most `faa_calls` of them (the
        // RFAA nodes of all call trees), each adding one of `faa_adds` to a value
        // held; close the interned values under that many additions
        for _ in 0..faa_calls {
            let before = vals.len();
            for i in 0..before {
                for &k in &faa_adds {
                    if let Some(v) = faa_sum(&vals[i], k) {
                        intern_in(&mut vals, &mut ids, &v);
                    }
                }
            }
            if vals.len() == before {
                break;
            }
            if vals.len() > 1 << 20 {
                return Err(MachineError::Unsupported("that many values computed by RFAA".into()));
            }
        }
        let nodes = prog.world.nodes.clone();
        let homes = prog.world.locs.iter().map(|l| l.home.unwrap_or(0)).collect();
        let nlocs = prog.world.locs.len();
        let nbufs = tries.len() * (1 + QP_BUFS * nodes.len());
        Ok(Explorer { prog, tries, machine, pcie, atomics, rmws, ids, nodes, vals, fnodes, homes, nlocs, nbufs })
    }

    fn qpi(&self, t: usize, n: u32) -> usize {
        let i = self.nodes.iter().position(|&m| m == n).unwrap_or(0);
        t * self.nodes.len() + i
    }

    pub fn qp_node(&self, i: usize) -> (usize, u32) {
        (i / self.nodes.len().max(1), self.nodes[i % self.nodes.len().max(1)])
    }

    fn node_of(&self, l: u32) -> u32 {
        self.homes[l as usize]
    }

    pub fn initial(&self) -> State {
        let mut w = Vec::with_capacity(self.nlocs + self.nbufs);
        for l in &self.prog.world.locs {
            w.push(self.vals.iter().position(|v| *v == l.init).unwrap_or(0) as u32);
        }
        w.resize(self.nlocs + self.nbufs, 0);
        State { pc: vec![0; self.tries.len()], w }
    }

    fn fnode(&self, s: &State, t: usize) -> &FNode {
        &self.fnodes[t][s.pc[t] as usize]
    }

    /// The enabled transitions of a state.
    pub fn steps(&self, s: &State) -> Vec<Step> {
        let mut out = Vec::new();
        self.steps_into(s, &mut out);
        out
    }

    fn steps_into(&self, s: &State, out: &mut Vec<Step>) {
        out.clear();
        let st = |rule, thread, node: Option<u32>, pos| Step { rule, thread, node, pos, choice: 0 };
        for t in 0..self.tries.len() {
            // the thread's next command (Fig. 6 with Fig. 7's labelled rules)
            let n = self.fnode(s, t);
            let sb_empty = self.len(s, self.sb(t)) == 0;
            if let Some(op) = n.op {
                match op {
                    FOp::Read(x) => {
                        let (v, _) = self.lookup_sb(s, t, x);
                        if n.child(v).is_some() {
                            out.push(st(Rule::LR, t, None, 0));
                        }
                    }
                    FOp::Write(..) | FOp::Put { .. } | FOp::Get { .. } | FOp::Rfence(_) | FOp::Rmw(_) => {
                        let rule = match op {
                            FOp::Write(..) => Rule::LW,
                            FOp::Put { .. } => Rule::Put,
                            FOp::Get { .. } => Rule::Get,
                            FOp::Rmw(_) => Rule::Rmw,
                            _ => Rule::RF,
                        };
                        for k in 0..n.kids.len() {
                            out.push(Step { choice: k, ..st(rule, t, None, 0) });
                        }
                    }
                    FOp::Cas(x, e, _) => {
                        if sb_empty {
                            let v = self.mem(s, x);
                            if n.child(v).is_some() {
                                out.push(st(if v == e { Rule::CASS } else { Rule::CASF }, t, None, 0));
                            }
                        }
                    }
                    FOp::Mfence | FOp::SetOp => {
                        if sb_empty {
                            let rule = if op == FOp::Mfence { Rule::F } else { Rule::SetOp };
                            for k in 0..n.kids.len() {
                                out.push(Step { choice: k, ..st(rule, t, None, 0) });
                            }
                        }
                    }
                    FOp::Poll(m) => {
                        if let Some(e) = self.first(s, self.qb(self.qpi(t, m), WBL)) {
                            if e.kind == K::Cn && n.child(e.id).is_some() {
                                out.push(st(Rule::P, t, Some(m), 0));
                            }
                        }
                    }
                }
            }
            // the store buffer
            match self.first(s, self.sb(t)) {
                Some(e) if e.kind == K::W => out.push(st(Rule::SbW, t, None, 0)),
                Some(_) => out.push(st(Rule::SbRc, t, None, 0)),
                None => {}
            }
        }
        for i in 0..self.tries.len() * self.nodes.len() {
            let (t, n) = self.qp_node(i);
            let q = |rule, pos| Step { rule, thread: t, node: Some(n), pos, choice: 0 };
            let wb_l_write = self.wbl_write(s, i);
            let wbl_cn = wb_l_write.is_none();
            let wbr_empty = self.len(s, self.qb(i, WBR)) == 0;
            let head = |k| self.first(s, self.qb(i, k)).map(|e| e.kind);
            match self.machine {
                Machine::Concrete => {
                    match head(REQ) {
                        Some(K::Get) => out.push(q(Rule::G1, 0)),
                        Some(K::Rmw) => out.push(q(Rule::A1, 0)),
                        Some(K::Put) if !self.pcie || wbl_cn => out.push(q(Rule::P1, 0)),
                        Some(K::Rf)
                            if self.len(s, self.qb(i, IN)) == 0
                                && self.len(s, self.qb(i, OUT)) == 0
                                && self.len(s, self.qb(i, RSP)) == 0 =>
                        {
                            out.push(q(Rule::QpRF, 0))
                        }
                        _ => {}
                    }
                    match head(IN) {
                        Some(K::Get) => out.push(q(Rule::G2, 0)),
                        Some(K::Rmw) => out.push(q(Rule::A2, 0)),
                        Some(K::PutV) => out.push(q(Rule::P2, 0)),
                        _ => {}
                    }
                    if !self.pcie || wbr_empty {
                        let b = self.qb(i, OUT);
                        for k in 0..self.len(s, b) {
                            if self.get(s, b, k).kind == K::Get {
                                out.push(q(Rule::G3, k));
                            }
                        }
                    }
                    let b = self.qb(i, OUT);
                    for k in 0..self.len(s, b) {
                        let e = self.get(s, b, k);
                        if e.kind == K::Rmw && self.rmw_ready(s, i, n, e.a) {
                            out.push(q(Rule::A3, k));
                        }
                    }
                    match head(OUT) {
                        Some(K::GetV) => out.push(q(Rule::G4, 0)),
                        Some(K::Ack) => out.push(q(Rule::P4, 0)),
                        _ => {}
                    }
                    if !wbr_empty {
                        out.push(q(Rule::P3, 0));
                    }
                    match head(RSP) {
                        Some(K::GetV) => out.push(q(Rule::G5, 0)),
                        Some(K::Ack) => out.push(q(Rule::P5, 0)),
                        _ => {}
                    }
                    if let Some(k) = wb_l_write {
                        out.push(q(Rule::G6, k));
                    }
                }
                Machine::Simplified => {
                    match head(REQ) {
                        Some(K::Rf) => out.push(q(Rule::SRF, 0)),
                        Some(K::Ack) => out.push(q(Rule::SP5, 0)),
                        Some(K::GetV) => out.push(q(Rule::SG5, 0)),
                        _ => {}
                    }
                    // β: what may be ahead (Fig. 19's side conditions)
                    let mut only_nic = true; // ahead ∈ {ȳ:=v, x:=ȳ, x:=v, ack}
                    let mut only_get_ack = true; // ahead ∈ {x:=ȳ, x:=v, ack}
                    let b = self.qb(i, REQ);
                    for k in 0..self.len(s, b) {
                        let e = self.get(s, b, k).kind;
                        match e {
                            K::Put if only_nic && (!self.pcie || wbl_cn) => out.push(q(Rule::SP1, k)),
                            K::PutV if only_get_ack => out.push(q(Rule::SP2, k)),
                            K::Get if only_get_ack && (!self.pcie || wbr_empty) => out.push(q(Rule::SG14, k)),
                            // an RMW stands where a get would (nothing but gets and
                            // acks ahead), with A3's premises
                            K::Rmw if only_get_ack && self.rmw_ready(s, i, n, self.get(s, b, k).a) => {
                                out.push(q(Rule::SA13, k))
                            }
                            _ => {}
                        }
                        match e {
                            K::Put | K::Rf => {
                                only_nic = false;
                                only_get_ack = false;
                            }
                            K::PutV => only_get_ack = false,
                            _ => {}
                        }
                        if !only_nic && !only_get_ack {
                            break;
                        }
                    }
                    if !wbr_empty {
                        out.push(q(Rule::SP34, 0));
                    }
                    if let Some(k) = wb_l_write {
                        out.push(q(Rule::SG6, k));
                    }
                }
            }
        }
    }

    /// Whether a transition may be taken alone and at once (a singleton
    /// persistent set). Each of these commutes with every transition that can be
    /// enabled before it is taken, and none of those disables it, so every final
    /// state (and every deadlock) reachable from the state stays reachable after
    /// it, by a run of the same length (docs/design.md, "Operational engine").
    pub fn eager(&self, s: &State, step: &Step) -> bool {
        let t = step.thread;
        match step.rule {
            // appends to the thread's own store buffer: only the thread reads its tail
            Rule::LW | Rule::Put | Rule::Get | Rule::RF | Rule::Rmw => self.fnode(s, t).kids.len() == 1,
            // B(t) = ε stays true: only t itself appends to B(t)
            Rule::F | Rule::SetOp => self.fnode(s, t).kids.len() == 1,
            // only t's polls remove cns; appends and G6 behind the head commute
            Rule::P => true,
            // moves the head of B(t) to the tail of req_L: no read looks at it
            Rule::SbRc => true,
            // internal moves of one queue pair that no other rule observes
            // (A1, A2: as G1, G2; no rule reads req_L or in_R beyond their heads,
            // and A3 looks at out_R and the wb_R buffers only)
            Rule::G1
            | Rule::G2
            | Rule::G4
            | Rule::P4
            | Rule::P5
            | Rule::QpRF
            | Rule::SRF
            | Rule::SP5
            | Rule::A1
            | Rule::A2 => true,
            // P2 fills wb_R, which G3 of an earlier get reads (or waits on, with
            // PCIe), and so does A3 of an earlier RMW; later gets and RMWs cannot
            // reach out_R before this put leaves in_R. (The put's write is not
            // marked atomic: A3 of other queue pairs does not look at it.)
            Rule::P2 => {
                let b = self.qb(self.qpi(t, step.node.unwrap_or(0)), OUT);
                (0..self.len(s, b)).all(|k| !matches!(self.get(s, b, k).kind, K::Get | K::Rmw))
            }
            Rule::SP2 => {
                let b = self.qb(self.qpi(t, step.node.unwrap_or(0)), REQ);
                (0..step.pos).all(|k| !matches!(self.get(s, b, k).kind, K::Get | K::Rmw))
            }
            _ => false,
        }
    }

    /// A3's premises for the RMW number `r` in queue pair `i` (towards node `n`):
    ///
    /// * where it reads: with PCIe, this queue pair's wb_R is empty (G3's
    ///   premise); without PCIe, it reads through wb_R as G3 does (HCA), or, for
    ///   the global variant, which reads and writes memory in one step, no write
    ///   to y is pending in this wb_R (otherwise that write would land after the
    ///   RMW's, which read it: not atomic);
    /// * the atomic unit of node n's NIC: no write of an earlier RMW to y is
    ///   pending in any wb_R of a queue pair towards n (none ever is with the
    ///   global variant).
    fn rmw_ready(&self, s: &State, i: usize, n: u32, r: u32) -> bool {
        let y = self.rmws[r as usize].tgt;
        let wbr = self.qb(i, WBR);
        let here = if self.pcie {
            self.len(s, wbr) == 0
        } else {
            match self.atomics {
                Atomicity::Hca => true,
                Atomicity::Global => (0..self.len(s, wbr)).all(|k| {
                    let e = self.get(s, wbr, k);
                    !(e.nic_write() && e.a == y)
                }),
            }
        };
        here && !self.rmw_write_pending(s, n, y)
    }

    /// Whether a write of a remote RMW to y (marked atomic) is pending in some
    /// wb_R of a queue pair towards node n (of any thread, loopback included).
    fn rmw_write_pending(&self, s: &State, n: u32, y: u32) -> bool {
        (0..self.tries.len()).any(|t| {
            let b = self.qb(self.qpi(t, n), WBR);
            (0..self.len(s, b)).any(|k| {
                let e = self.get(s, b, k);
                e.kind == K::RmwW && e.a == y
            })
        })
    }

    /// Whether every thread has finished and every buffer is drained (pending
    /// cns in wb_L are completions nobody polled, not writes).
    pub fn finished(&self, s: &State) -> bool {
        (0..self.tries.len()).all(|t| self.fnode(s, t).leaf && self.len(s, self.sb(t)) == 0)
            && (0..self.tries.len() * self.nodes.len()).all(|i| {
                [REQ, IN, WBR, OUT, RSP].iter().all(|&k| self.len(s, self.qb(i, k)) == 0)
                    && self.wbl_write(s, i).is_none()
            })
    }

    pub fn outcome(&self, s: &State) -> Outcome {
        let mut regs = Vec::new();
        let mut finals = BTreeMap::new();
        for (t, &p) in s.pc.iter().enumerate() {
            let (env, _) = self.tries[t].nodes[p as usize].leaf.clone().unwrap_or_default();
            regs.push(env);
        }
        // every declared location (not the implicit ones standing for literal
        // sources), as the declarative engine reports them
        for (l, li) in self.prog.world.locs.iter().enumerate() {
            if !li.implicit {
                finals.insert((l, None), self.vals[s.w[l] as usize].clone());
            }
        }
        Outcome { regs, finals }
    }
}

/// A run of the machine: each transition with the state after it, the execution
/// graph it builds (getEG), and its outcome.
pub struct Run {
    pub steps: Vec<(Step, State)>,
    pub graph: Graph,
    pub outcome: Outcome,
}
