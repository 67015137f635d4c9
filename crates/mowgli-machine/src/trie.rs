//! The program side of the machine (RDMA paper Fig. 6): each thread's program,
//! unfolded by the meta-language's own semantics (`mowgli_core::program`), as a
//! tree of calls. A node is "the thread has made these calls and got these
//! values back"; its `call` is the next primitive command (determined by the
//! values returned so far: programs are deterministic given their return
//! values), and its children are indexed by the value the call returns. The
//! machine (the hardware side, Fig. 7) decides which value a call returns (the
//! value a read finds in `M ◁ B(t)`, the identifier a poll takes from `wb_L`),
//! and the thread moves to that child; no child means the program cannot go on
//! with that value (a loop past its unrolling bound): the run is dropped, as the
//! declarative engine drops the plain executions the unfolding cuts off.
//!
//! This is the paper's "assume(x = v)" reading of reads (Fig. 6): the program
//! guesses every value (the unfolding offers every candidate value of the
//! location), and the hardware keeps the guess that matches memory.

use std::collections::BTreeSet;

use mowgli_core::program::{unfold_with, CallRecord, Hooks, Prog};
use mowgli_core::{Library, Value, ValueDomain, World};

use crate::MachineError;

/// A primitive command of RDMA^TSO (Fig. 6's PComm), with its arguments evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `r = Read(x)`: assume(x = v), label lR(x, v).
    Read(usize),
    /// `Write(x, v)`: x := v, label lW(x, v).
    Write(usize, Value),
    /// `r = CAS(x, e_old, e_new)`.
    Cas(usize, Value, Value),
    Mfence,
    /// `Put(x, y)`: x̄ := y, the NIC reads local y and writes remote x.
    Put {
        dst: usize,
        src: usize,
    },
    /// `Get(x, y)`: x := ȳ, the NIC reads remote y and writes local x.
    Get {
        dst: usize,
        src: usize,
    },
    Poll(u32),
    Rfence(u32),
    /// `SetAdd`/`SetRemove`/`SetIsEmpty` of LOCO App. F.1: per-thread bookkeeping
    /// stamped aMF (a memory fence), their values decided by the thread's history.
    SetOp(&'static str),
    /// `RCAS(x, y, e, v)` (issue 33): a remote compare-and-swap, issued towards the
    /// node of `y`: the NIC of that node reads `y` and, if it holds `e`, writes
    /// `v` there in the same atomic step; the old value of `y` lands in local `x`
    /// as a get's value does. Returns a NIC operation identifier, as `Get` does.
    Rcas {
        dst: usize,
        tgt: usize,
        expected: Value,
        new: Value,
    },
    /// `RFAA(x, y, k)` (issue 33): a remote fetch-and-add: `y := old + k`, the old
    /// value to local `x`. `k` is an integer.
    Rfaa {
        dst: usize,
        tgt: usize,
        add: i64,
    },
}

#[derive(Clone, Debug)]
pub struct Call {
    pub op: Op,
    pub lib: usize,
    pub method: usize,
    pub args: Vec<Value>,
}

#[derive(Clone, Debug, Default)]
pub struct Node {
    /// The next call, or `None` at the end of a run.
    pub call: Option<Call>,
    /// Children by returned value.
    pub kids: Vec<(Value, u32)>,
    /// The number of calls before this one (the index of `call` in the thread).
    pub depth: u16,
    /// At the end of a run: the final registers and the locations the run's calls address.
    pub leaf: Option<(Vec<Option<Value>>, BTreeSet<usize>)>,
}

impl Node {
    pub fn child(&self, v: &Value) -> Option<u32> {
        self.kids.iter().find(|(k, _)| k == v).map(|(_, n)| *n)
    }
}

#[derive(Clone, Debug, Default)]
pub struct Trie {
    pub nodes: Vec<Node>,
    /// The unfolding cut some runs off at the loop bound.
    pub bound_hit: bool,
}

struct H<'a> {
    world: &'a World,
    libs: &'a [&'a dyn Library],
    dom: &'a ValueDomain,
    thread: usize,
}

impl Hooks for H<'_> {
    fn returns(&mut self, lib: usize, method: usize, args: &[Value], history: &[CallRecord]) -> Vec<Value> {
        match self.libs.get(lib) {
            Some(l) => l.returns_after(self.world, self.thread, lib, history, method, args, self.dom),
            None => vec![],
        }
    }
    fn check(&mut self, lib: usize, method: usize, args: &[Value]) -> Result<(), String> {
        let l = self.libs.get(lib).ok_or_else(|| format!("call of an unknown library #{lib}"))?;
        if method >= l.methods().len() {
            return Err(format!("library `{}` has no method #{method}", l.name()));
        }
        l.check_call(self.world, self.thread, method, args)
    }
}

fn loc(args: &[Value], i: usize, what: &str) -> Result<usize, MachineError> {
    args.get(i)
        .and_then(Value::as_loc)
        .ok_or_else(|| MachineError::Unsupported(format!("{what}: argument {i} is not a location")))
}

fn node(args: &[Value], what: &str) -> Result<u32, MachineError> {
    args.first()
        .and_then(Value::as_node)
        .ok_or_else(|| MachineError::Unsupported(format!("{what}: the argument is not a node")))
}

/// The method names the machine runs: the eleven methods of LOCO App. F.1 that
/// `rdmatso`, `rdmatso_nopcie` and `rdmatso_f1` share, and the remote RMWs
/// `RCAS`, `RFAA` of issue 33 (no library of the catalogue declares them yet).
pub const METHODS: [&str; 13] = [
    "Read",
    "Write",
    "CAS",
    "Mfence",
    "Put",
    "Get",
    "Poll",
    "Rfence",
    "SetAdd",
    "SetRemove",
    "SetIsEmpty",
    "RCAS",
    "RFAA",
];

/// The primitive command of a call, by method name (see [`METHODS`]).
pub fn op_of(lib: &dyn Library, method: usize, args: &[Value]) -> Result<Op, MachineError> {
    let name = lib.methods().get(method).map(|m| m.name).unwrap_or("?");
    let val = |i: usize| args.get(i).cloned().unwrap_or(Value::Unit);
    Ok(match name {
        "Read" => Op::Read(loc(args, 0, name)?),
        "Write" => Op::Write(loc(args, 0, name)?, val(1)),
        "CAS" => Op::Cas(loc(args, 0, name)?, val(1), val(2)),
        "Mfence" => Op::Mfence,
        "Put" => Op::Put { dst: loc(args, 0, name)?, src: loc(args, 1, name)? },
        "Get" => Op::Get { dst: loc(args, 0, name)?, src: loc(args, 1, name)? },
        "Poll" => Op::Poll(node(args, name)?),
        "Rfence" => Op::Rfence(node(args, name)?),
        "SetAdd" => Op::SetOp("SetAdd"),
        "SetRemove" => Op::SetOp("SetRemove"),
        "SetIsEmpty" => Op::SetOp("SetIsEmpty"),
        "RCAS" => Op::Rcas { dst: loc(args, 0, name)?, tgt: loc(args, 1, name)?, expected: val(2), new: val(3) },
        "RFAA" => match val(2) {
            Value::Int(add) => Op::Rfaa { dst: loc(args, 0, name)?, tgt: loc(args, 1, name)?, add },
            v => return Err(MachineError::Unsupported(format!("RFAA: the increment `{v:?}` is not an integer"))),
        },
        other => return Err(MachineError::Unsupported(format!("method `{}.{other}`", lib.name()))),
    })
}

/// The locations a call addresses (𝒢.R ∪ 𝒢.W of its subevents), as the
/// declarative engine's final values cover exactly the locations some
/// subevent reads or writes.
fn touched(op: &Op, out: &mut BTreeSet<usize>) {
    match op {
        Op::Read(x) | Op::Write(x, _) | Op::Cas(x, _, _) => {
            out.insert(*x);
        }
        Op::Put { dst, src } | Op::Get { dst, src } => {
            out.insert(*dst);
            out.insert(*src);
        }
        Op::Rcas { dst, tgt, .. } | Op::Rfaa { dst, tgt, .. } => {
            out.insert(*dst);
            out.insert(*tgt);
        }
        _ => {}
    }
}

/// Builds the call tree of thread `t`.
pub fn build(
    world: &World,
    libs: &[&dyn Library],
    dom: &ValueDomain,
    t: usize,
    prog: &Prog,
    nregs: usize,
    loop_bound: usize,
) -> Result<Trie, MachineError> {
    let mut h = H { world, libs, dom, thread: t };
    let u = unfold_with(prog, t, nregs, loop_bound, &mut h).map_err(|e| MachineError::Program(e.to_string()))?;
    let mut trie = Trie { nodes: vec![Node::default()], bound_hit: u.bound_hit };
    for run in &u.runs {
        let mut cur = 0usize;
        let mut locs = BTreeSet::new();
        for c in &run.calls {
            let lib = *libs.get(c.lib).ok_or_else(|| MachineError::Unsupported(format!("library #{}", c.lib)))?;
            let op = op_of(lib, c.method, &c.args)?;
            touched(&op, &mut locs);
            let n = &mut trie.nodes[cur];
            if n.leaf.is_some() {
                return Err(MachineError::Program(format!("thread {t}: a run ends where another one calls")));
            }
            match &n.call {
                None => n.call = Some(Call { op, lib: c.lib, method: c.method, args: c.args.to_vec() }),
                Some(prev) => {
                    if prev.lib != c.lib || prev.method != c.method || prev.args[..] != c.args[..] {
                        return Err(MachineError::Program(format!(
                            "thread {t}: the program is not deterministic given its return values"
                        )));
                    }
                }
            }
            cur = match trie.nodes[cur].child(&c.ret) {
                Some(k) => k as usize,
                None => {
                    let k = trie.nodes.len();
                    let depth = trie.nodes[cur].depth.saturating_add(1);
                    trie.nodes.push(Node { depth, ..Node::default() });
                    trie.nodes[cur].kids.push((c.ret.clone(), k as u32));
                    k
                }
            };
        }
        let n = &mut trie.nodes[cur];
        if n.call.is_some() {
            return Err(MachineError::Program(format!("thread {t}: a run ends where another one calls")));
        }
        n.leaf = Some((run.env.clone(), locs));
    }
    Ok(trie)
}

/// A primitive command with interned values (see [`Op`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FOp {
    Read(u32),
    Write(u32, u32),
    Cas(u32, u32, u32),
    Mfence,
    Put {
        dst: u32,
        src: u32,
    },
    Get {
        dst: u32,
        src: u32,
    },
    Poll(u32),
    Rfence(u32),
    SetOp,
    /// A remote RMW: its index in [`crate::Explorer`]'s table of RMW commands.
    Rmw(u32),
}

/// A node of a thread's call tree with interned values: the next command and
/// the children by returned value.
#[derive(Clone, Debug, Default)]
pub(crate) struct FNode {
    pub(crate) op: Option<FOp>,
    pub(crate) kids: Vec<(u32, u32)>,
    pub(crate) depth: u16,
    pub(crate) leaf: bool,
}

impl FNode {
    pub(crate) fn child(&self, v: u32) -> Option<u32> {
        self.kids.iter().find(|(k, _)| *k == v).map(|(_, n)| *n)
    }
}
