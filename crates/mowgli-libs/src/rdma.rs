//! What RDMA^TSO and RDMA^WAIT share: the stamp kinds of LOCO Fig. 10, the
//! stamping function stmp_RL (LOCO App. F.2), "respects nodes", and the read /
//! write roles of subevents (𝒢.R and 𝒢.W).

use mowgli_core::memory::{ReadSpec, ReadVal, RfMo, RmwOp, WriteSpec, WriteVal};
use mowgli_core::model::LibId;
use mowgli_core::BitRel;
use mowgli_core::{Event, ExecGraph, NodeId, Stamp, StampTable, Value, World};

use crate::LibError;

/// Indices of the RDMA stamp kinds in the stamp order in force.
#[derive(Clone, Copy, Debug)]
pub struct Kinds {
    pub cr: u8,
    pub cw: u8,
    pub cas: u8,
    pub mf: u8,
    pub wt: u8,
    pub nlr: u8,
    pub nrw: u8,
    pub nrr: u8,
    pub nlw: u8,
    pub rf: u8,
    pub gf: u8,
    /// aNAR_n, the NIC atomic read of a remote RMW (issue 33): only the RMW
    /// libraries need it, so an order without it still serves the others.
    pub nar: Option<u8>,
    /// aNAW_n, a remote RMW's atomic write under HCA atomicity (issue 33).
    pub naw: Option<u8>,
}

impl Kinds {
    pub fn of(to: &StampTable) -> Result<Kinds, LibError> {
        let k = |name: &str, family: bool| -> Result<u8, LibError> {
            let i =
                to.kind(name).ok_or_else(|| LibError::MissingStamp { table: to.name.clone(), stamp: name.into() })?;
            if to.family[i as usize] != family {
                return Err(LibError::MissingStamp {
                    table: to.name.clone(),
                    stamp: format!("{name}{}", if family { "_n (as a family)" } else { " (as a single stamp)" }),
                });
            }
            Ok(i)
        };
        Ok(Kinds {
            cr: k("aCR", false)?,
            cw: k("aCW", false)?,
            cas: k("aCAS", false)?,
            mf: k("aMF", false)?,
            wt: k("aWT", false)?,
            nlr: k("aNLR", true)?,
            nrw: k("aNRW", true)?,
            nrr: k("aNRR", true)?,
            nlw: k("aNLW", true)?,
            rf: k("aRF", true)?,
            gf: k("aGF", true)?,
            nar: to.kind("aNAR").is_some().then(|| k("aNAR", true)).transpose()?,
            naw: to.kind("aNAW").is_some().then(|| k("aNAW", true)).transpose()?,
        })
    }

    pub fn single(&self, kind: u8) -> Stamp {
        Stamp { kind, node: None }
    }

    pub fn fam(&self, kind: u8, n: NodeId) -> Stamp {
        Stamp { kind, node: Some(n) }
    }

    /// Instantaneous subevents: all but aCW, aNLW, aNRW and aNAW (their start
    /// and end differ).
    pub fn inst(&self, s: Stamp) -> bool {
        s.kind != self.cw && s.kind != self.nlw && s.kind != self.nrw && Some(s.kind) != self.naw
    }
}

/// Method numbering shared by the two RDMA libraries: the common methods first.
pub const READ: usize = 0;
pub const WRITE: usize = 1;
pub const CAS: usize = 2;
pub const MFENCE: usize = 3;
pub const PUT: usize = 4;
pub const GET: usize = 5;
/// `Poll(n)` for RDMA^TSO, `Wait(d)` for RDMA^WAIT.
pub const POLL_OR_WAIT: usize = 6;
pub const RFENCE: usize = 7;
/// RDMA^TSO as extended by LOCO App. F.1 only (see [`crate::tsoext`]).
pub const SET_ADD: usize = 8;
pub const SET_REMOVE: usize = 9;
pub const SET_IS_EMPTY: usize = 10;
/// RDMA^TSO_RMW only (issue 33, [`crate::rmw`]): `RCAS(x, y, e, v)`, `RFAA(x, y, k)`.
pub const RCAS: usize = 11;
pub const RFAA: usize = 12;

/// What the RMW event `e` (`RCAS(x, y, e, v)` or `RFAA(x, y, k)`) writes to y
/// given what it read.
pub fn rmw_op(e: &Event) -> RmwOp {
    let arg = |i: usize| e.args.get(i).cloned().unwrap_or(Value::Unit);
    match (e.method, arg(2)) {
        (RFAA, Value::Int(k)) => RmwOp::Add(k),
        // a non-integer increment is refused by the library's `check_call`
        (RFAA, _) => RmwOp::Add(0),
        _ => RmwOp::Cas { expected: arg(2), new: arg(3) },
    }
}

/// Whether `method` is a remote RMW (the numbering is shared, so this holds only
/// in a library that declares them).
pub fn is_rmw(method: usize) -> bool {
    method == RCAS || method == RFAA
}

fn loc_arg(args: &[Value], i: usize) -> usize {
    args.get(i).and_then(Value::as_loc).unwrap_or(usize::MAX)
}

/// "Respects nodes" (LOCO App. F.2): local arguments live on the caller's node,
/// and every location named lives on some node.
pub fn check_nodes(world: &World, thread: usize, method: usize, args: &[Value]) -> Result<(), String> {
    let here = world.thread_node(thread);
    let lname = |l: usize| world.locs.get(l).map(|i| i.name.as_str()).unwrap_or("?");
    for a in args {
        if let Value::Loc(l) = a {
            if world.locs[*l].home.is_none() {
                return Err(format!(
                    "location `{}` is replicated (declared without `@ N`); RDMA locations live on one node",
                    lname(*l)
                ));
            }
        }
    }
    let local: &[usize] = match method {
        READ | WRITE | CAS => &[0],
        PUT => &[1],
        GET | RCAS | RFAA => &[0],
        _ => &[],
    };
    for &i in local {
        let l = loc_arg(args, i);
        if l == usize::MAX {
            continue;
        }
        let n = world.loc_node(l).unwrap_or(0);
        if n != here {
            return Err(format!(
                "location `{}` is on node {n}, but thread `{}` runs on node {here}; this argument must be local",
                lname(l),
                world.threads[thread].name
            ));
        }
    }
    if method == RFENCE || (method == POLL_OR_WAIT && matches!(args.first(), Some(Value::Node(_)))) {
        if let Some(n) = args.first().and_then(Value::as_node) {
            if !world.nodes.contains(&n) {
                return Err(format!("node {n} is not a node of this program"));
            }
        }
    }
    Ok(())
}

/// stmp_RL (LOCO App. F.2); for RDMA^TSO the poll takes the place of the wait (App. F.1).
pub fn stmp_rl(k: &Kinds, world: &World, e: &Event) -> Vec<Stamp> {
    let node_of = |i: usize| world.loc_node(loc_arg(&e.args, i)).unwrap_or(0);
    match e.method {
        READ => vec![k.single(k.cr)],
        WRITE => vec![k.single(k.cw)],
        CAS => {
            if e.args.get(1) == Some(&e.ret) {
                vec![k.single(k.cas)]
            } else {
                vec![k.single(k.mf), k.single(k.cr)]
            }
        }
        MFENCE => vec![k.single(k.mf)],
        PUT => vec![k.fam(k.nlr, node_of(0)), k.fam(k.nrw, node_of(0))],
        GET => vec![k.fam(k.nrr, node_of(1)), k.fam(k.nlw, node_of(1))],
        POLL_OR_WAIT => vec![k.single(k.wt)],
        RFENCE => vec![k.fam(k.rf, e.args.first().and_then(Value::as_node).unwrap_or(0))],
        _ => vec![],
    }
}

/// The return values of the common methods.
pub fn returns(method: usize, args: &[Value], dom: &mowgli_core::ValueDomain) -> Vec<Value> {
    match method {
        READ | CAS => {
            let l = loc_arg(args, 0);
            dom.at(l).to_vec()
        }
        _ => vec![Value::Unit],
    }
}

pub fn locs(e: &Event) -> Vec<usize> {
    match e.method {
        READ | WRITE | CAS => vec![loc_arg(&e.args, 0)],
        PUT | GET | RCAS | RFAA => vec![loc_arg(&e.args, 0), loc_arg(&e.args, 1)],
        _ => vec![],
    }
}

/// The reads and writes of the library's subevents, one memory cell per location:
/// CPU reads return the event's value, a successful CAS reads its expected value
/// and writes the new one, a put's NIC read reads its source and its NIC remote
/// write writes that value, and a get the other way round.
pub fn memory(k: &Kinds, g: &ExecGraph, lib: usize) -> RfMo {
    let mut reads = Vec::new();
    let mut writes = Vec::new();
    for (ei, e) in g.events.iter().enumerate() {
        if e.lib != lib {
            continue;
        }
        for &s in &g.subs_of[ei] {
            let st = g.subs[s].stamp;
            let a0 = loc_arg(&e.args, 0);
            let a1 = loc_arg(&e.args, 1);
            if st.kind == k.cr {
                let val = g.read_val(ei, &e.ret);
                reads.push(ReadSpec { sub: s, cell: a0, val });
            } else if st.kind == k.cw {
                writes.push(WriteSpec { sub: s, cell: a0, val: WriteVal::Known(e.args[1].clone()) });
            } else if st.kind == k.cas {
                reads.push(ReadSpec { sub: s, cell: a0, val: ReadVal::Known(e.ret.clone()) });
                writes.push(WriteSpec { sub: s, cell: a0, val: WriteVal::Known(e.args[2].clone()) });
            } else if st.kind == k.nlr {
                // put: NIC local read of the source y = args[1]
                reads.push(ReadSpec { sub: s, cell: a1, val: ReadVal::Free });
            } else if Some(st.kind) == k.nar {
                // a remote RMW's atomic read of y = args[1]; under global atomicity
                // the same subevent writes y (`crate::rmw`)
                reads.push(ReadSpec { sub: s, cell: a1, val: ReadVal::Free });
                if g.subs_of[ei].len() == 2 {
                    let val = WriteVal::Rmw { read: reads.len() - 1, op: rmw_op(e) };
                    writes.push(WriteSpec { sub: s, cell: a1, val });
                }
            } else if Some(st.kind) == k.naw {
                // the atomic write of an RMW (HCA): to y, computed from its read
                let read = reads.iter().rposition(|r| g.subs[r.sub].event == ei).unwrap_or(0);
                writes.push(WriteSpec { sub: s, cell: a1, val: WriteVal::Rmw { read, op: rmw_op(e) } });
            } else if st.kind == k.nrw {
                writes.push(WriteSpec { sub: s, cell: a0, val: WriteVal::CopyOf(reads.len() - 1) });
            } else if st.kind == k.nrr {
                // get: NIC remote read of y = args[1]
                reads.push(ReadSpec { sub: s, cell: a1, val: ReadVal::Free });
            } else if st.kind == k.nlw {
                writes.push(WriteSpec { sub: s, cell: a0, val: WriteVal::CopyOf(reads.len() - 1) });
            }
        }
    }
    let init = g.world.locs.iter().map(|l| l.init.clone()).collect();
    let mut mem = RfMo::new(g.len(), init, reads, writes);
    mem.returned_reads(|s| g.sym_ret[g.subs[s].event]);
    mem
}

/// The value returned by a symbolic CPU read: what its aCR subevent reads.
pub fn returned(k: &Kinds, g: &ExecGraph, mem: &RfMo, event: usize) -> Option<Value> {
    let s = *g.subs_of[event].iter().find(|&&s| g.subs[s].stamp.kind == k.cr)?;
    mem.value_read_by(s)
}

/// Choices of the NIC flush order: one per pair (NIC local read, NIC local write)
/// and (NIC remote read, NIC remote write) of the same thread towards the same node,
/// between different events. Pairs whose order `forced` already fixes get no variable.
pub fn nfo_pairs(k: &Kinds, g: &ExecGraph, lib: usize) -> Vec<(usize, usize)> {
    // the NIC reads and the NIC writes of the library, each in subevent order
    let of_kinds = |k1, k2| -> Vec<usize> {
        (0..g.len())
            .filter(|&s| {
                let kind = g.subs[s].stamp.kind;
                (kind == k1 || kind == k2) && g.events[g.subs[s].event].lib == lib
            })
            .collect()
    };
    let mut nic_reads = of_kinds(k.nlr, k.nrr);
    if let Some(nar) = k.nar {
        // an RMW's atomic read flushes its queue pair's remote writes as a get's does
        nic_reads.extend(of_kinds(nar, nar));
        nic_reads.sort_unstable();
    }
    let mut nic_writes = of_kinds(k.nlw, k.nrw);
    if let Some(naw) = k.naw {
        // an RMW's atomic write waits in wb_R as a put's does
        nic_writes.extend(of_kinds(naw, naw));
        nic_writes.sort_unstable();
    }
    let mut pairs = Vec::new();
    for &a in &nic_reads {
        for &b in &nic_writes {
            let (sa, sb) = (g.subs[a], g.subs[b]);
            if sa.event == sb.event
                || g.events[sa.event].thread != g.events[sb.event].thread
                || sa.stamp.node != sb.stamp.node
            {
                continue;
            }
            let remote_read = sa.stamp.kind == k.nrr || Some(sa.stamp.kind) == k.nar;
            let remote_write = sb.stamp.kind == k.nrw || Some(sb.stamp.kind) == k.naw;
            let pair = (sa.stamp.kind == k.nlr && sb.stamp.kind == k.nlw) || (remote_read && remote_write);
            if pair {
                pairs.push((a, b));
            }
        }
    }
    pairs
}

/// The witness variables of the RDMA libraries: rf and mo first ([`RfMo`]), then
/// one orientation per nfo pair of [`nfo_pairs`] (0: the pair's first subevent
/// flushes first), then one per rao pair of [`crate::rmw::rao_pairs`] (0: the
/// pair's first atomic read is first). Orientations decide consistency only, not
/// values.
pub struct RdmaVars {
    pub mem: RfMo,
    nfo_pairs: Vec<(usize, usize)>,
    rao_pairs: Vec<(usize, usize)>,
    /// wb_R entry order of an RMW's atomic write and a later put's write
    /// ([`crate::rmw::fifo_pairs`]).
    fifo_pairs: Vec<(usize, usize)>,
    /// The orientations chosen so far: the nfo pairs', the rao pairs', the fifo pairs'.
    choice: Vec<Option<usize>>,
}

impl RdmaVars {
    pub fn new(mem: RfMo, nfo_pairs: Vec<(usize, usize)>) -> RdmaVars {
        Self::with_rao(mem, nfo_pairs, Vec::new(), Vec::new())
    }
    /// With rao and fifo pairs too (RDMA^TSO_RMW under HCA atomicity).
    pub fn with_rao(
        mem: RfMo,
        nfo_pairs: Vec<(usize, usize)>,
        rao_pairs: Vec<(usize, usize)>,
        fifo_pairs: Vec<(usize, usize)>,
    ) -> RdmaVars {
        let choice = vec![None; nfo_pairs.len() + rao_pairs.len() + fifo_pairs.len()];
        RdmaVars { mem, choice, nfo_pairs, rao_pairs, fifo_pairs }
    }
    pub fn num_vars(&self) -> usize {
        self.mem.num_vars() + self.choice.len()
    }
    pub fn domain(&self, var: usize) -> usize {
        if var < self.mem.num_vars() {
            self.mem.domain(var)
        } else {
            2
        }
    }
    pub fn assign(&mut self, var: usize, val: Option<usize>) {
        if var < self.mem.num_vars() {
            self.mem.assign(var, val)
        } else {
            self.choice[var - self.mem.num_vars()] = val;
        }
    }
    /// The pairs the nfo orientations are about.
    pub fn nfo_pairs(&self) -> &[(usize, usize)] {
        &self.nfo_pairs
    }
    /// Whether `var` orients an nfo or rao pair.
    pub fn is_orientation(&self, var: usize) -> bool {
        var >= self.mem.num_vars()
    }
    /// The oriented pair of orientation `i` (counted after the memory's variables).
    fn pair(&self, i: usize) -> (usize, usize) {
        let (n, r) = (self.nfo_pairs.len(), self.rao_pairs.len());
        if i < n {
            self.nfo_pairs[i]
        } else if i < n + r {
            self.rao_pairs[i - n]
        } else {
            self.fifo_pairs[i - n - r]
        }
    }
    /// The subevents variable `var` is about.
    pub fn subevents(&self, var: usize) -> Vec<usize> {
        if var < self.mem.num_vars() {
            vec![self.mem.var_subevent(var)]
        } else {
            let (a, b) = self.pair(var - self.mem.num_vars());
            vec![a, b]
        }
    }
    /// nfo as oriented so far, over `n` subevents.
    pub fn nfo(&self, n: usize) -> BitRel {
        let mut nfo = BitRel::new(n);
        self.nfo_into(n, &mut nfo);
        nfo
    }
    /// [`RdmaVars::nfo`] into `nfo`'s storage.
    pub fn nfo_into(&self, n: usize, nfo: &mut BitRel) {
        self.oriented_into(n, 0..self.nfo_pairs.len(), nfo);
    }
    /// rao as oriented so far, into `rao`'s storage.
    pub fn rao_into(&self, n: usize, rao: &mut BitRel) {
        let start = self.nfo_pairs.len();
        self.oriented_into(n, start..start + self.rao_pairs.len(), rao);
    }
    /// The fifo pairs as oriented so far (aNAR of the RMW first: its write entered
    /// wb_R before the put's), into `fifo`'s storage.
    pub fn fifo_into(&self, n: usize, fifo: &mut BitRel) {
        self.oriented_into(n, self.nfo_pairs.len() + self.rao_pairs.len()..self.choice.len(), fifo);
    }
    fn oriented_into(&self, n: usize, which: std::ops::Range<usize>, r: &mut BitRel) {
        r.reset(n);
        for i in which {
            let (a, b) = self.pair(i);
            match self.choice[i] {
                Some(0) => r.add(a, b),
                Some(_) => r.add(b, a),
                None => {}
            }
        }
    }
    /// Every assignment, valid or not.
    pub fn naive_count(&self) -> f64 {
        self.mem.naive_unfiltered() * 2f64.powi(self.choice.len() as i32)
    }
}

/// The parts of an RDMA^WAIT-style consistency check (LOCO Def. F.1, F.2) fixed by
/// the plain execution.
pub struct StaticParts<'a> {
    /// ippo ∪ iso ∪ the polls-from part of ib.
    pub ib: &'a BitRel,
    /// iso ∪ the polls-from part of so.
    pub so: &'a BitRel,
    /// [aCW]; po; [aCR] (candidates for rf_i).
    pub cw_po_cr: &'a BitRel,
    /// [aCR]; (po ∪ po⁻¹); [aCW] (candidates for rb_i).
    pub cr_po_cw: &'a BitRel,
    /// Inst, per subevent.
    pub inst: &'a [bool],
}

/// The common core of LOCO Def. F.1 and F.2 for the current (partial) witness:
/// ib = (static ∪ rf ∪ nfo ∪ rb_i)⁺ must be irreflexive, and so gets
/// static ∪ rf_e ∪ nfo ∪ rb ∪ mo ∪ ([Inst]; ib).
pub fn check_ib_so(mem: &RfMo, nfo: &BitRel, st: &StaticParts, so: &mut BitRel) -> bool {
    let rf = mem.rf_rel();
    let rb = mem.rb_rel();
    let rf_i = rf.intersect(st.cw_po_cr);
    let rf_e = rf.minus(&rf_i);
    let rb_i = rb.intersect(st.cr_po_cw);
    let mut ib = st.ib.clone();
    ib.union_with(&rf);
    ib.union_with(nfo);
    ib.union_with(&rb_i);
    ib.close_transitively();
    if !ib.is_irreflexive() {
        return false;
    }
    so.union_with(st.so);
    so.union_with(&rf_e);
    so.union_with(nfo);
    so.union_with(&rb);
    so.union_with(&mem.mo_rel());
    let inst = st.inst;
    so.union_with(&ib.restrict(|a| inst[a], |_| true));
    true
}

/// iso (App. F.2): inside a failed CAS aMF before aCR, inside a get aNRR before aNLW,
/// inside a put aNLR before aNRW.
pub fn iso(k: &Kinds, g: &ExecGraph, me: LibId) -> BitRel {
    let mut r = BitRel::new(g.len());
    for (ei, subs) in g.subs_of.iter().enumerate() {
        if g.events[ei].lib != me || subs.len() != 2 {
            continue;
        }
        let (a, b) = (subs[0], subs[1]);
        let (ka, kb) = (g.subs[a].stamp.kind, g.subs[b].stamp.kind);
        if (ka == k.mf && kb == k.cr) || (ka == k.nrr && kb == k.nlw) || (ka == k.nlr && kb == k.nrw) {
            r.add(a, b);
        }
    }
    r
}
