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
//! Buffers are stored oldest first: index 0 is the head (the paper writes
//! sequences with the head on the right, `α · e` has head `e`, and adds new
//! entries on the left).
//!
//! The state space is explored with a visited set and, optionally, a
//! partial-order reduction: transitions that commute with every other
//! transition and that no other transition can disable are taken eagerly, alone
//! (singleton persistent sets, see [`Explorer::eager`] and docs/design.md,
//! "Operational engine").

pub mod graph;
pub mod trie;

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet};
use std::fmt;
use std::time::Instant;

use mowgli_core::program::Prog;
use mowgli_core::{Library, Value, ValueDomain, World};

use graph::Graph;
use trie::{Op, Trie};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MachineError {
    #[error("the operational engine does not cover {0}")]
    Unsupported(String),
    #[error("{0}")]
    Program(String),
    #[error("more than {0} machine states: lower the bounds")]
    TooManyStates(usize),
}

/// Which machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Machine {
    /// Six buffers per queue pair (§3.2, Fig. 7).
    Concrete,
    /// Three buffers per queue pair (§3.3, App. B, Fig. 19-20).
    Simplified,
}

#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub machine: Machine,
    /// With the PCIe guarantee; `None`: from the library (`rdmatso_nopcie` has none).
    pub pcie: Option<bool>,
    /// The partial-order reduction (eager independent transitions).
    pub reduce: bool,
    pub max_states: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { machine: Machine::Concrete, pcie: None, reduce: true, max_states: 5_000_000 }
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

/// The rules of the machines, named as in the paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    // Fig. 6 + Fig. 7 (program and hardware together, Fig. 8), labelled transitions
    /// `lW(x, v)`: the write enters the store buffer.
    LW,
    /// `lR(x, v)`: `(M ◁ B(t))(x) = v`.
    LR,
    /// `CASS(x, v1, v2)`: `B(t) = ε`, `M(x) = v1`.
    CASS,
    /// `CASF(x, v)`: `B(t) = ε`, `M(x) = v ≠ e_old`.
    CASF,
    /// `F`: `B(t) = ε`.
    F,
    /// `Get(x, ȳ)`: the get enters the store buffer.
    Get,
    /// `Put(ȳ, x)`: the put enters the store buffer.
    Put,
    /// `rF(n̄)`: the remote fence enters the store buffer.
    RF,
    /// `P(n̄)`: `wb_L = α · cn` of the n̄-queue pair; the cn is removed.
    P,
    /// LOCO App. F.1's set operations: stamp aMF, so `B(t) = ε` as for `F`.
    SetOp,
    // Fig. 7, silent hardware transitions
    /// `B(t) = b · (x := v)`: the oldest write leaves the store buffer for memory.
    SbW,
    /// `B(t) = b · rc`: the oldest remote operation leaves the store buffer for req_L
    /// (for the pipe, in the simplified machine).
    SbRc,
    // Fig. 7, concrete queue-pair transitions (steps of p. 11)
    G1,
    G2,
    G3,
    G4,
    G5,
    G6,
    P1,
    P2,
    P3,
    P4,
    P5,
    /// The third →qp rule: `req_L = α · rfence`, `in_R = out_R = rsp_L = ε`.
    QpRF,
    // Fig. 19, simplified queue-pair transitions
    /// `pipe = α · rfence`.
    SRF,
    /// Step P1 in the pipe.
    SP1,
    /// Step P2 (the put becomes its ack in place).
    SP2,
    /// Steps P3-P4: the head of wb_R to memory.
    SP34,
    /// Step P5.
    SP5,
    /// Steps G1-G4: the get is fulfilled in the pipe.
    SG14,
    /// Step G5.
    SG5,
    /// Step G6.
    SG6,
}

impl Rule {
    pub fn describe(self) -> &'static str {
        match self {
            Rule::LW => "lW: CPU write enters the store buffer",
            Rule::LR => "lR: CPU read from M ◁ B(t)",
            Rule::CASS => "CASS: successful CAS (store buffer empty)",
            Rule::CASF => "CASF: failed CAS (store buffer empty)",
            Rule::F => "F: mfence (store buffer empty)",
            Rule::Get => "Get: the get enters the store buffer",
            Rule::Put => "Put: the put enters the store buffer",
            Rule::RF => "rF: the remote fence enters the store buffer",
            Rule::P => "P: poll removes the cn at the head of wb_L",
            Rule::SetOp => "set operation (App. F.1, a fence: store buffer empty)",
            Rule::SbW => "store buffer: oldest write to memory",
            Rule::SbRc => "store buffer: oldest remote operation to the queue pair",
            Rule::G1 => "G1: get req_L -> in_R",
            Rule::G2 => "G2: get in_R -> out_R (not yet fulfilled)",
            Rule::G3 => "G3: get fulfilled in out_R (remote read)",
            Rule::G4 => "G4: fulfilled get out_R -> rsp_L",
            Rule::G5 => "G5: fulfilled get rsp_L -> wb_L, with its cn",
            Rule::G6 => "G6: get's write leaves wb_L for local memory",
            Rule::P1 => "P1: put req_L -> in_R, local read",
            Rule::P2 => "P2: put in_R -> wb_R, ack_p -> out_R",
            Rule::P3 => "P3: put's write leaves wb_R for remote memory",
            Rule::P4 => "P4: ack_p out_R -> rsp_L",
            Rule::P5 => "P5: ack_p rsp_L -> wb_L as cn",
            Rule::QpRF => "rfence leaves req_L (in_R, out_R, rsp_L empty)",
            Rule::SRF => "rfence leaves the pipe (at its head)",
            Rule::SP1 => "P1: put's local read in the pipe",
            Rule::SP2 => "P2: put -> wb_R, ack_p in its place",
            Rule::SP34 => "P3-P4: put's write leaves wb_R for remote memory",
            Rule::SP5 => "P5: ack_p at the pipe's head -> wb_L as cn",
            Rule::SG14 => "G1-G4: get fulfilled in the pipe (remote read)",
            Rule::SG5 => "G5: fulfilled get at the pipe's head -> wb_L, with its cn",
            Rule::SG6 => "G6: get's write leaves wb_L for local memory",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

/// An event of the run: thread and index of the call in the thread.
pub type Ev = (u16, u16);

/// Store-buffer entries (Fig. 5, first row).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sb {
    W { loc: u32, val: Value, ev: Ev },
    Put { dst: u32, src: u32, ev: Ev, id: Value },
    Get { dst: u32, src: u32, ev: Ev, id: Value },
    RF { node: u32, ev: Ev },
}

/// Queue-pair entries (Fig. 5, other rows).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Q {
    /// `ȳ := x`: a put not yet read.
    Put {
        dst: u32,
        src: u32,
        ev: Ev,
        id: Value,
    },
    /// `ȳ := v`.
    PutV {
        dst: u32,
        val: Value,
        ev: Ev,
        id: Value,
    },
    Ack {
        ev: Ev,
        id: Value,
    },
    /// `x := ȳ`: a get not yet fulfilled.
    Get {
        dst: u32,
        src: u32,
        ev: Ev,
        id: Value,
    },
    /// `x := v`.
    GetV {
        dst: u32,
        val: Value,
        ev: Ev,
        id: Value,
    },
    RF {
        ev: Ev,
    },
    /// cn, with the identifier of the operation it completes.
    Cn {
        ev: Ev,
        id: Value,
    },
}

/// A queue pair; in the simplified machine `req` is the pipe and `in_r`,
/// `out_r`, `rsp` stay empty.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Qp {
    pub req: Vec<Q>,
    pub in_r: Vec<Q>,
    pub wb_r: Vec<Q>,
    pub out_r: Vec<Q>,
    pub rsp: Vec<Q>,
    pub wb_l: Vec<Q>,
}

impl Qp {
    fn empty(&self) -> bool {
        self.req.is_empty()
            && self.in_r.is_empty()
            && self.wb_r.is_empty()
            && self.out_r.is_empty()
            && self.rsp.is_empty()
            && self.wb_l.iter().all(|e| matches!(e, Q::Cn { .. }))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// Per thread, its node in its call tree.
    pub pc: Vec<u32>,
    pub sb: Vec<Vec<Sb>>,
    /// Index `t * nodes + i` for the queue pair of thread t towards the i-th node.
    pub qp: Vec<Qp>,
    pub mem: Vec<Value>,
}

/// One transition: the rule, the thread, the queue pair's node (for queue-pair
/// rules), a position (G3/SP1/SP2/SG14/G6/SG6: which entry) and a choice (which
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

pub struct Explorer<'a> {
    pub prog: &'a Program<'a>,
    pub tries: Vec<Trie>,
    pub machine: Machine,
    pub pcie: bool,
    nodes: Vec<u32>,
}

/// Whether the library is one whose programs the machine runs, and its PCIe flag.
pub fn library_pcie(lib: &dyn Library) -> Option<bool> {
    match lib.name() {
        "rdmatso" | "rdmatso_f1" => Some(true),
        "rdmatso_nopcie" => Some(false),
        _ => None,
    }
}

fn lookup_sb(mem: &[Value], b: &[Sb], x: u32) -> (Value, Src) {
    for e in b.iter().rev() {
        if let Sb::W { loc, val, ev } = e {
            if *loc == x {
                return (val.clone(), Src::Entry(*ev, 0));
            }
        }
    }
    (mem[x as usize].clone(), Src::Memory)
}

/// `(M ◁ α)(x)` over a write-back buffer: the newest pending write to x, else memory.
fn lookup_wb(mem: &[Value], b: &[Q], x: u32) -> (Value, Src) {
    for e in b.iter().rev() {
        match e {
            Q::PutV { dst, val, ev, .. } | Q::GetV { dst, val, ev, .. } if *dst == x => {
                return (val.clone(), Src::Entry(*ev, 1))
            }
            _ => {}
        }
    }
    (mem[x as usize].clone(), Src::Memory)
}

impl<'a> Explorer<'a> {
    pub fn new(prog: &'a Program<'a>, machine: Machine, pcie: Option<bool>) -> Result<Self, MachineError> {
        let mut flag = None;
        for l in prog.libs {
            match library_pcie(*l) {
                Some(p) => flag = Some(p),
                None => return Err(MachineError::Unsupported(format!("library `{}`", l.name()))),
            }
        }
        if prog.libs.len() > 1 {
            return Err(MachineError::Unsupported("programs over more than one library".into()));
        }
        if prog.world.locs.iter().any(|l| l.home.is_none()) {
            return Err(MachineError::Unsupported("replicated locations".into()));
        }
        let pcie = pcie.or(flag).unwrap_or(true);
        let mut tries = Vec::new();
        for (t, (p, n)) in prog.threads.iter().enumerate() {
            tries.push(trie::build(prog.world, prog.libs, prog.domain, t, p, *n, prog.loop_bound)?);
        }
        if prog.threads.len() > u16::MAX as usize {
            return Err(MachineError::Unsupported("that many threads".into()));
        }
        Ok(Explorer { prog, tries, machine, pcie, nodes: prog.world.nodes.clone() })
    }

    fn qpi(&self, t: usize, n: u32) -> usize {
        let i = self.nodes.iter().position(|&m| m == n).unwrap_or(0);
        t * self.nodes.len() + i
    }

    pub fn qp_node(&self, i: usize) -> (usize, u32) {
        (i / self.nodes.len().max(1), self.nodes[i % self.nodes.len().max(1)])
    }

    fn node_of(&self, l: u32) -> u32 {
        self.prog.world.locs[l as usize].home.unwrap_or(0)
    }

    pub fn initial(&self) -> State {
        State {
            pc: vec![0; self.tries.len()],
            sb: vec![vec![]; self.tries.len()],
            qp: vec![Qp::default(); self.tries.len() * self.nodes.len()],
            mem: self.prog.world.locs.iter().map(|l| l.init.clone()).collect(),
        }
    }

    /// The enabled transitions of a state.
    pub fn steps(&self, s: &State) -> Vec<Step> {
        let mut out = Vec::new();
        let st = |rule, thread, node: Option<u32>, pos| Step { rule, thread, node, pos, choice: 0 };
        for t in 0..self.tries.len() {
            // the thread's next command (Fig. 6 with Fig. 7's labelled rules)
            let n = &self.tries[t].nodes[s.pc[t] as usize];
            if let Some(c) = &n.call {
                let sb = &s.sb[t];
                match &c.op {
                    Op::Read(x) => {
                        let (v, _) = lookup_sb(&s.mem, sb, *x as u32);
                        if n.child(&v).is_some() {
                            out.push(st(Rule::LR, t, None, 0));
                        }
                    }
                    Op::Write(..) | Op::Put { .. } | Op::Get { .. } | Op::Rfence(_) => {
                        let rule = match c.op {
                            Op::Write(..) => Rule::LW,
                            Op::Put { .. } => Rule::Put,
                            Op::Get { .. } => Rule::Get,
                            _ => Rule::RF,
                        };
                        for k in 0..n.kids.len() {
                            out.push(Step { choice: k, ..st(rule, t, None, 0) });
                        }
                    }
                    Op::Cas(x, e, _) => {
                        if sb.is_empty() {
                            let v = &s.mem[*x];
                            if n.child(v).is_some() {
                                out.push(st(if v == e { Rule::CASS } else { Rule::CASF }, t, None, 0));
                            }
                        }
                    }
                    Op::Mfence | Op::SetOp(_) => {
                        if sb.is_empty() {
                            let rule = if c.op == Op::Mfence { Rule::F } else { Rule::SetOp };
                            for k in 0..n.kids.len() {
                                out.push(Step { choice: k, ..st(rule, t, None, 0) });
                            }
                        }
                    }
                    Op::Poll(m) => {
                        let qp = &s.qp[self.qpi(t, *m)];
                        if let Some(Q::Cn { id, .. }) = qp.wb_l.first() {
                            if n.child(id).is_some() {
                                out.push(st(Rule::P, t, Some(*m), 0));
                            }
                        }
                    }
                }
            }
            // the store buffer
            match s.sb[t].first() {
                Some(Sb::W { .. }) => out.push(st(Rule::SbW, t, None, 0)),
                Some(_) => out.push(st(Rule::SbRc, t, None, 0)),
                None => {}
            }
        }
        for (i, qp) in s.qp.iter().enumerate() {
            let (t, n) = self.qp_node(i);
            let q = |rule, pos| Step { rule, thread: t, node: Some(n), pos, choice: 0 };
            let wbl_cn = qp.wb_l.iter().all(|e| matches!(e, Q::Cn { .. }));
            let wb_l_write = qp.wb_l.iter().position(|e| !matches!(e, Q::Cn { .. }));
            match self.machine {
                Machine::Concrete => {
                    match qp.req.first() {
                        Some(Q::Get { .. }) => out.push(q(Rule::G1, 0)),
                        Some(Q::Put { .. }) if !self.pcie || wbl_cn => out.push(q(Rule::P1, 0)),
                        Some(Q::RF { .. }) if qp.in_r.is_empty() && qp.out_r.is_empty() && qp.rsp.is_empty() => {
                            out.push(q(Rule::QpRF, 0))
                        }
                        _ => {}
                    }
                    match qp.in_r.first() {
                        Some(Q::Get { .. }) => out.push(q(Rule::G2, 0)),
                        Some(Q::PutV { .. }) => out.push(q(Rule::P2, 0)),
                        _ => {}
                    }
                    if !self.pcie || qp.wb_r.is_empty() {
                        for (k, e) in qp.out_r.iter().enumerate() {
                            if matches!(e, Q::Get { .. }) {
                                out.push(q(Rule::G3, k));
                            }
                        }
                    }
                    match qp.out_r.first() {
                        Some(Q::GetV { .. }) => out.push(q(Rule::G4, 0)),
                        Some(Q::Ack { .. }) => out.push(q(Rule::P4, 0)),
                        _ => {}
                    }
                    if !qp.wb_r.is_empty() {
                        out.push(q(Rule::P3, 0));
                    }
                    match qp.rsp.first() {
                        Some(Q::GetV { .. }) => out.push(q(Rule::G5, 0)),
                        Some(Q::Ack { .. }) => out.push(q(Rule::P5, 0)),
                        _ => {}
                    }
                    if let Some(k) = wb_l_write {
                        out.push(q(Rule::G6, k));
                    }
                }
                Machine::Simplified => {
                    let pipe = &qp.req;
                    match pipe.first() {
                        Some(Q::RF { .. }) => out.push(q(Rule::SRF, 0)),
                        Some(Q::Ack { .. }) => out.push(q(Rule::SP5, 0)),
                        Some(Q::GetV { .. }) => out.push(q(Rule::SG5, 0)),
                        _ => {}
                    }
                    // β: what may be ahead (Fig. 19's side conditions)
                    let mut only_nic = true; // ahead ∈ {ȳ:=v, x:=ȳ, x:=v, ack}
                    let mut only_get_ack = true; // ahead ∈ {x:=ȳ, x:=v, ack}
                    for (k, e) in pipe.iter().enumerate() {
                        match e {
                            Q::Put { .. } if only_nic && (!self.pcie || wbl_cn) => out.push(q(Rule::SP1, k)),
                            Q::PutV { .. } if only_get_ack => out.push(q(Rule::SP2, k)),
                            Q::Get { .. } if only_get_ack && (!self.pcie || qp.wb_r.is_empty()) => {
                                out.push(q(Rule::SG14, k))
                            }
                            _ => {}
                        }
                        match e {
                            Q::Put { .. } | Q::RF { .. } => {
                                only_nic = false;
                                only_get_ack = false;
                            }
                            Q::PutV { .. } => only_get_ack = false,
                            _ => {}
                        }
                        if !only_nic && !only_get_ack {
                            break;
                        }
                    }
                    if !qp.wb_r.is_empty() {
                        out.push(q(Rule::SP34, 0));
                    }
                    if let Some(k) = wb_l_write {
                        out.push(q(Rule::SG6, k));
                    }
                }
            }
        }
        out
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
            Rule::LW | Rule::Put | Rule::Get | Rule::RF => self.tries[t].nodes[s.pc[t] as usize].kids.len() == 1,
            // B(t) = ε stays true: only t itself appends to B(t)
            Rule::F | Rule::SetOp => self.tries[t].nodes[s.pc[t] as usize].kids.len() == 1,
            // only t's polls remove cns; appends and G6 behind the head commute
            Rule::P => true,
            // moves the head of B(t) to the tail of req_L: no read looks at it
            Rule::SbRc => true,
            // internal moves of one queue pair that no other rule observes
            Rule::G1 | Rule::G2 | Rule::G4 | Rule::P4 | Rule::P5 | Rule::QpRF | Rule::SRF | Rule::SP5 => true,
            // P2 fills wb_R, which G3 of an earlier get reads (or waits on, with
            // PCIe); later gets cannot reach out_R before this put leaves in_R
            Rule::P2 => {
                let qp = &s.qp[self.qpi(t, step.node.unwrap_or(0))];
                !qp.out_r.iter().any(|e| matches!(e, Q::Get { .. }))
            }
            Rule::SP2 => {
                let qp = &s.qp[self.qpi(t, step.node.unwrap_or(0))];
                !qp.req[..step.pos].iter().any(|e| matches!(e, Q::Get { .. }))
            }
            _ => false,
        }
    }

    /// Applies an enabled transition; `g` records the execution graph (getEG).
    pub fn apply(&self, s: &State, step: &Step, mut g: Option<&mut Graph>) -> State {
        let mut s = s.clone();
        let t = step.thread;
        let advance = |s: &mut State, v: &Value, choice: Option<usize>| -> Ev {
            let node = &self.tries[t].nodes[s.pc[t] as usize];
            let depth = node.depth;
            let k = match choice {
                Some(c) => node.kids[c].1,
                None => node.child(v).unwrap_or(0),
            };
            s.pc[t] = k;
            (t as u16, depth)
        };
        let call = self.tries[t].nodes[s.pc[t] as usize].call.clone();
        match step.rule {
            Rule::LR => {
                let Some(c) = call else { return s };
                let Op::Read(x) = c.op else { return s };
                let (v, src) = lookup_sb(&s.mem, &s.sb[t], x as u32);
                let ev = advance(&mut s, &v, None);
                if let Some(g) = g.as_deref_mut() {
                    g.event(ev, &c, &v, self.prog.world);
                    g.read((ev, 0), x as u32, &v, src);
                }
            }
            Rule::LW | Rule::Put | Rule::Get | Rule::RF => {
                let Some(c) = call else { return s };
                let kid = self.tries[t].nodes[s.pc[t] as usize].kids[step.choice].0.clone();
                let ev = advance(&mut s, &kid, Some(step.choice));
                let e = match &c.op {
                    Op::Write(x, v) => Sb::W { loc: *x as u32, val: v.clone(), ev },
                    Op::Put { dst, src } => Sb::Put { dst: *dst as u32, src: *src as u32, ev, id: kid.clone() },
                    Op::Get { dst, src } => Sb::Get { dst: *dst as u32, src: *src as u32, ev, id: kid.clone() },
                    Op::Rfence(n) => Sb::RF { node: *n, ev },
                    _ => return s,
                };
                s.sb[t].push(e);
                if let Some(g) = g.as_deref_mut() {
                    g.event(ev, &c, &kid, self.prog.world);
                }
            }
            Rule::CASS | Rule::CASF => {
                let Some(c) = call else { return s };
                let Op::Cas(x, _, n) = &c.op else { return s };
                let v = s.mem[*x].clone();
                let ev = advance(&mut s, &v, None);
                if let Some(g) = g.as_deref_mut() {
                    g.event(ev, &c, &v, self.prog.world);
                    g.read((ev, 0), *x as u32, &v, Src::Memory);
                }
                if step.rule == Rule::CASS {
                    s.mem[*x] = n.clone();
                    if let Some(g) = g.as_deref_mut() {
                        g.write_mem((ev, 0), *x as u32);
                    }
                }
            }
            Rule::F | Rule::SetOp => {
                let Some(c) = call else { return s };
                let kid = self.tries[t].nodes[s.pc[t] as usize].kids[step.choice].0.clone();
                let ev = advance(&mut s, &kid, Some(step.choice));
                if let Some(g) = g.as_deref_mut() {
                    g.event(ev, &c, &kid, self.prog.world);
                }
            }
            Rule::P => {
                let Some(c) = call else { return s };
                let i = self.qpi(t, step.node.unwrap_or(0));
                let Q::Cn { ev: op, id } = s.qp[i].wb_l.remove(0) else { return s };
                let ev = advance(&mut s, &id, None);
                if let Some(g) = g.as_deref_mut() {
                    g.event(ev, &c, &id, self.prog.world);
                    g.polls((op, 1), (ev, 0));
                }
            }
            Rule::SbW => {
                let Sb::W { loc, val, ev } = s.sb[t].remove(0) else { return s };
                s.mem[loc as usize] = val;
                if let Some(g) = g.as_deref_mut() {
                    g.write_mem((ev, 0), loc);
                }
            }
            Rule::SbRc => {
                let (q, n) = match s.sb[t].remove(0) {
                    Sb::Put { dst, src, ev, id } => (Q::Put { dst, src, ev, id }, self.node_of(dst)),
                    Sb::Get { dst, src, ev, id } => (Q::Get { dst, src, ev, id }, self.node_of(src)),
                    Sb::RF { node, ev } => (Q::RF { ev }, node),
                    Sb::W { .. } => return s,
                };
                let i = self.qpi(t, n);
                s.qp[i].req.push(q);
            }
            _ => {
                let i = self.qpi(t, step.node.unwrap_or(0));
                self.apply_qp(&mut s, i, step, g);
            }
        }
        s
    }

    fn apply_qp(&self, s: &mut State, i: usize, step: &Step, mut g: Option<&mut Graph>) {
        let pcie = self.pcie;
        let State { qp, mem, .. } = s;
        let qp = &mut qp[i];
        match step.rule {
            Rule::G1 => {
                let e = qp.req.remove(0);
                qp.in_r.push(e);
            }
            Rule::G2 => {
                let e = qp.in_r.remove(0);
                qp.out_r.push(e);
            }
            Rule::G3 | Rule::SG14 => {
                let buf = if step.rule == Rule::G3 { &mut qp.out_r } else { &mut qp.req };
                let Q::Get { dst, src, ev, id } = buf[step.pos].clone() else { return };
                let (v, from) =
                    if pcie { (mem[src as usize].clone(), Src::Memory) } else { lookup_wb(mem, &qp.wb_r, src) };
                if let Some(g) = g.as_deref_mut() {
                    g.read((ev, 0), src, &v, from);
                }
                let buf = if step.rule == Rule::G3 { &mut qp.out_r } else { &mut qp.req };
                buf[step.pos] = Q::GetV { dst, val: v, ev, id };
            }
            Rule::G4 | Rule::P4 => {
                let e = qp.out_r.remove(0);
                qp.rsp.push(e);
            }
            Rule::G5 | Rule::SG5 => {
                let e = if step.rule == Rule::G5 { qp.rsp.remove(0) } else { qp.req.remove(0) };
                let Q::GetV { ev, ref id, .. } = e else { return };
                let cn = Q::Cn { ev, id: id.clone() };
                if let Some(g) = g.as_deref_mut() {
                    if let Q::GetV { dst, val, .. } = &e {
                        g.issue_write((ev, 1), *dst, val);
                    }
                }
                qp.wb_l.push(e);
                qp.wb_l.push(cn);
            }
            Rule::G6 | Rule::SG6 => {
                let Q::GetV { dst, val, ev, .. } = qp.wb_l.remove(step.pos) else { return };
                mem[dst as usize] = val;
                if let Some(g) = g.as_deref_mut() {
                    g.write_mem((ev, 1), dst);
                }
            }
            Rule::P1 | Rule::SP1 => {
                let pos = if step.rule == Rule::P1 { 0 } else { step.pos };
                let Q::Put { dst, src, ev, id } = qp.req[pos].clone() else { return };
                let (v, from) =
                    if pcie { (mem[src as usize].clone(), Src::Memory) } else { lookup_wb(mem, &qp.wb_l, src) };
                if let Some(g) = g.as_deref_mut() {
                    g.read((ev, 0), src, &v, from);
                }
                let e = Q::PutV { dst, val: v, ev, id };
                if step.rule == Rule::P1 {
                    qp.req.remove(0);
                    qp.in_r.push(e);
                } else {
                    qp.req[pos] = e;
                }
            }
            Rule::P2 | Rule::SP2 => {
                let e = if step.rule == Rule::P2 { qp.in_r.remove(0) } else { qp.req[step.pos].clone() };
                let Q::PutV { dst, ref val, ev, ref id } = e else { return };
                if let Some(g) = g.as_deref_mut() {
                    g.issue_write((ev, 1), dst, val);
                }
                let ack = Q::Ack { ev, id: id.clone() };
                if step.rule == Rule::P2 {
                    qp.out_r.push(ack);
                } else {
                    qp.req[step.pos] = ack;
                }
                qp.wb_r.push(e);
            }
            Rule::P3 | Rule::SP34 => {
                let Q::PutV { dst, val, ev, .. } = qp.wb_r.remove(0) else { return };
                mem[dst as usize] = val;
                if let Some(g) = g {
                    g.write_mem((ev, 1), dst);
                }
            }
            Rule::P5 | Rule::SP5 => {
                let e = if step.rule == Rule::P5 { qp.rsp.remove(0) } else { qp.req.remove(0) };
                let Q::Ack { ev, id } = e else { return };
                qp.wb_l.push(Q::Cn { ev, id });
            }
            Rule::QpRF | Rule::SRF => {
                qp.req.remove(0);
            }
            _ => {}
        }
    }

    /// Applies eager transitions until none is enabled (with the reduction).
    fn close(&self, mut s: State, reduce: bool, trail: &mut Option<Vec<Step>>, n: &mut usize) -> State {
        if !reduce {
            return s;
        }
        loop {
            let steps = self.steps(&s);
            let Some(st) = steps.into_iter().find(|st| self.eager(&s, st)) else { return s };
            s = self.apply(&s, &st, None);
            *n += 1;
            if let Some(tr) = trail {
                tr.push(st);
            }
        }
    }

    /// Whether every thread has finished and every buffer is drained (pending
    /// cns in wb_L are completions nobody polled, not writes).
    pub fn finished(&self, s: &State) -> bool {
        s.pc.iter().enumerate().all(|(t, &p)| self.tries[t].nodes[p as usize].leaf.is_some())
            && s.sb.iter().all(|b| b.is_empty())
            && s.qp.iter().all(|q| q.empty())
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
                finals.insert((l, None), s.mem[l].clone());
            }
        }
        Outcome { regs, finals }
    }

    /// Every final outcome, exploring the state space depth first.
    pub fn explore(&self, opts: &Options) -> Result<Explored, MachineError> {
        let start = Instant::now();
        let mut res = Explored { bounded: self.tries.iter().any(|t| t.bound_hit), ..Default::default() };
        let mut none = None;
        let mut n = 0usize;
        let init = self.close(self.initial(), opts.reduce, &mut none, &mut n);
        let mut seen: HashSet<State> = HashSet::new();
        let mut stack = vec![init.clone()];
        seen.insert(init);
        while let Some(s) = stack.pop() {
            let steps = self.steps(&s);
            if steps.is_empty() {
                if self.finished(&s) {
                    res.outcomes.insert(self.outcome(&s));
                } else {
                    res.deadlocks += 1;
                }
                continue;
            }
            for st in steps {
                n += 1;
                let next = self.close(self.apply(&s, &st, None), opts.reduce, &mut none, &mut n);
                if !seen.contains(&next) {
                    if seen.len() >= opts.max_states {
                        return Err(MachineError::TooManyStates(opts.max_states));
                    }
                    seen.insert(next.clone());
                    stack.push(next);
                }
            }
        }
        res.states = seen.len();
        res.transitions = n;
        res.micros = start.elapsed().as_micros();
        Ok(res)
    }

    /// A shortest run (fewest transitions) to a final state whose outcome
    /// satisfies `want`, with the execution graph it builds.
    pub fn shortest_run(
        &self,
        opts: &Options,
        want: &mut dyn FnMut(&Outcome) -> bool,
    ) -> Result<Option<Run>, MachineError> {
        let mut n = 0usize;
        let mut trail = Some(vec![]);
        let init = self.close(self.initial(), opts.reduce, &mut trail, &mut n);
        let init_trail = trail.take().unwrap_or_default();
        // Dijkstra on the number of transitions (an edge folds eager steps in)
        let mut ids: HashMap<State, usize> = HashMap::new();
        let mut states: Vec<State> = vec![init.clone()];
        let mut parent: Vec<Option<(usize, Vec<Step>)>> = vec![None];
        let mut dist: Vec<usize> = vec![init_trail.len()];
        ids.insert(init, 0);
        let mut heap = BinaryHeap::new();
        heap.push(std::cmp::Reverse((init_trail.len(), 0usize)));
        let mut done = vec![false];
        let mut found = None;
        while let Some(std::cmp::Reverse((d, i))) = heap.pop() {
            if done[i] || d > dist[i] {
                continue;
            }
            done[i] = true;
            let s = states[i].clone();
            let steps = self.steps(&s);
            if steps.is_empty() {
                if self.finished(&s) && want(&self.outcome(&s)) {
                    found = Some(i);
                    break;
                }
                continue;
            }
            for st in steps {
                let mut tr = Some(vec![st]);
                let next = self.close(self.apply(&s, &st, None), opts.reduce, &mut tr, &mut n);
                let tr = tr.unwrap_or_default();
                let nd = d + tr.len();
                let j = match ids.get(&next) {
                    Some(&j) => j,
                    None => {
                        if states.len() >= opts.max_states {
                            return Err(MachineError::TooManyStates(opts.max_states));
                        }
                        states.push(next.clone());
                        parent.push(None);
                        dist.push(usize::MAX);
                        done.push(false);
                        ids.insert(next, states.len() - 1);
                        states.len() - 1
                    }
                };
                if nd < dist[j] {
                    dist[j] = nd;
                    parent[j] = Some((i, tr));
                    heap.push(std::cmp::Reverse((nd, j)));
                }
            }
        }
        let Some(mut i) = found else { return Ok(None) };
        let mut chunks = Vec::new();
        while let Some((p, tr)) = parent[i].clone() {
            chunks.push(tr);
            i = p;
        }
        let mut path = init_trail;
        for c in chunks.into_iter().rev() {
            path.extend(c);
        }
        // replay, recording the states and the execution graph
        let mut g = Graph::new(self.prog.world);
        let mut s = self.initial();
        let mut steps = Vec::new();
        for st in path {
            s = self.apply(&s, &st, Some(&mut g));
            steps.push((st, s.clone()));
        }
        let outcome = self.outcome(&s);
        Ok(Some(Run { steps, graph: g, outcome }))
    }

    /// The state as text: store buffers, queue pairs (non-empty buffers), memory.
    pub fn show_state(&self, s: &State) -> String {
        let w = self.prog.world;
        let name = |l: u32| w.locs[l as usize].name.clone();
        let shv = |v: &Value| w.show(v);
        let ev = |e: &Ev| format!("{}.{}", w.threads[e.0 as usize].name, e.1);
        let sbe = |e: &Sb| match e {
            Sb::W { loc, val, .. } => format!("{} := {}", name(*loc), shv(val)),
            Sb::Put { dst, src, .. } => format!("put {} := {}", name(*dst), name(*src)),
            Sb::Get { dst, src, .. } => format!("get {} := {}", name(*dst), name(*src)),
            Sb::RF { node, .. } => format!("rfence {node}"),
        };
        let qe = |e: &Q| match e {
            Q::Put { dst, src, .. } => format!("{} := {}", name(*dst), name(*src)),
            Q::PutV { dst, val, .. } => format!("{} := {}", name(*dst), shv(val)),
            Q::Ack { ev: e, .. } => format!("ack_p({})", ev(e)),
            Q::Get { dst, src, .. } => format!("{} := {}", name(*dst), name(*src)),
            Q::GetV { dst, val, .. } => format!("{} := {}", name(*dst), shv(val)),
            Q::RF { .. } => "rfence".to_string(),
            Q::Cn { ev: e, .. } => format!("cn({})", ev(e)),
        };
        let list = |v: Vec<String>| format!("[{}]", v.join(", "));
        let mut out = String::new();
        for (t, b) in s.sb.iter().enumerate() {
            if !b.is_empty() {
                out +=
                    &format!("      sb {}: {} (oldest first)\n", w.threads[t].name, list(b.iter().map(sbe).collect()));
            }
        }
        for (i, qp) in s.qp.iter().enumerate() {
            if qp == &Qp::default() {
                continue;
            }
            let (t, n) = self.qp_node(i);
            let bufs: Vec<(&str, &Vec<Q>)> = match self.machine {
                Machine::Concrete => vec![
                    ("req_L", &qp.req),
                    ("in_R", &qp.in_r),
                    ("out_R", &qp.out_r),
                    ("rsp_L", &qp.rsp),
                    ("wb_R", &qp.wb_r),
                    ("wb_L", &qp.wb_l),
                ],
                Machine::Simplified => vec![("pipe", &qp.req), ("wb_R", &qp.wb_r), ("wb_L", &qp.wb_l)],
            };
            let parts: Vec<String> = bufs
                .into_iter()
                .filter(|(_, b)| !b.is_empty())
                .map(|(nm, b)| format!("{nm} {}", list(b.iter().map(qe).collect())))
                .collect();
            out += &format!("      qp {}->{}: {}\n", w.threads[t].name, n, parts.join("  "));
        }
        let mem: Vec<String> = w
            .locs
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.implicit)
            .map(|(i, l)| format!("{}@{}={}", l.name, l.home.unwrap_or(0), shv(&s.mem[i])))
            .collect();
        out += &format!("      memory: {}\n", mem.join(" "));
        out
    }
}

/// A run of the machine: each transition with the state after it, the execution
/// graph it builds (getEG), and its outcome.
pub struct Run {
    pub steps: Vec<(Step, State)>,
    pub graph: Graph,
    pub outcome: Outcome,
}

/// Explores `prog` on one machine.
pub fn explore(prog: &Program, opts: &Options) -> Result<Explored, MachineError> {
    Explorer::new(prog, opts.machine, opts.pcie)?.explore(opts)
}
